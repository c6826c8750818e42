"""Feature services that `MemoryService` (core/service.py) composes.

Each feature owns one room of the facade: the event log (`events`), the write and read path
of curated memory (`memories`), the user's review controls (`review`), retrieval
(`retrieval`) and administration: keys, index, policy, members (`admin`). They share one
`Engine` (`context.py`): the store, keys, policy, ledger, catalog and retriever of the open
store. Every mutation goes feature service -> workflow or governance rule -> storage
repository, in one write transaction.
"""
