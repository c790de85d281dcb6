"""How many CPU cores this process may use, and who sets torch's threads on them."""
