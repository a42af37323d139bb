"""The run folder: the guarded store (the only way in), its journal and manifest, the read-only
reader, the cross-file integrity checks, `validate`, atomic writes and crash points."""
