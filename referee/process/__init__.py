"""The process side of the referee: starting a bot in its sandbox (spawn, sandbox, pidns), talking to it
(runner), timing it (clocks) and making sure nothing it started outlives its match (reaper)."""
