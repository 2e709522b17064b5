"""Webhooks: signed POSTs to targets an operator registered, for what happens to a user's
memories, delivered by the durable job queue (retries with backoff, then a dead letter)."""
