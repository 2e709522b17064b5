"""FalkorDB as a server: where it is (one URL or Sentinels), the connection-pooled client every
graph query goes through, the embedded server Engram starts itself, the wait for replicas after
a write, and the fast reader of its compact result format. No Cypher of Engram's own data lives
here: that is app.storage.graph."""
