"""The read path of memory: catalog, keyword index, ranking, budgeted injection (R13-R18)."""
