"""The memory graph in FalkorDB and all of Engram's Cypher: GraphStore (store.py) with its own
queries (cypher.py), memories as graph properties and back (records.py), the schema's migrations
(schema.py), and one module of Cypher per concern (listing, relations, enrichment, sessions,
erasure, fsck, export and import, …), each taking a GraphStore. The connection itself is
app.storage.falkordb's."""
