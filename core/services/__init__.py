"""The feature services; each is one namespace of `MemoryService` (core/service.py, #39).

`events` (EventService), `memories` (Memories), `review` (ReviewService), `retrieval`
(RetrievalService), `index`, `policy` and `keys` (admin.py), `team` (TeamAdmin), `agents`
(AgentControls) and `spool` (SpoolService). They share one `Engine` (`context.py`): the
store, keys, policy, ledger, catalog, retriever and the spool gate of the open store. Every
mutation goes feature service -> workflow or governance rule -> storage repository, in one
write transaction.
"""
