"""Durable background jobs in the FalkorDB Redis: the queue, its worker slots and the kind names.

Nothing here imports a domain; which handler runs each kind is wired in `app.wiring`.
"""
