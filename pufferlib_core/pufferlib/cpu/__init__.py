"""The CPU side of the core: how many cores this process may use (`cores`), who sets torch's
threads on them (`threads`: `set_torch_threads`, `ThreadTuner`, `WorkerThreads`), and the
probing controller (`probe.Prober`) that `ThreadTuner` and the multiprocessing backend's
`SpinPolicy` share. Importing the package imports none of them (`probe` and `cores` need no torch)."""
