"""The cluster model and the reference scorers: pure functions, exact to the upstream
schedulers' arithmetic, wired into executable schedulers by :mod:`schedulers`."""
