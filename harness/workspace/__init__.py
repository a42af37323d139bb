"""The run folder: the guarded store (the only way in), its write journal (`WriteJournal`: intents
and recovery), the initial manifest and its layout, the staging of new run folders, the read-only
reader, the cross-file integrity checks, `validate`, atomic writes and crash points."""
