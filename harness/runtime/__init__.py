"""The subagent runtime: the small agent interface every engine implements, and the guarded context it runs in."""
