"""The composition root's wiring: which handler runs each job kind, and work that starts itself."""
