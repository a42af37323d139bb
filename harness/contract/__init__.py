"""The rules about files: artifact kinds and paths, schemas, agent specs, policies, citation syntax,
claim statuses, quote matching and formats. Each rule is defined here once; everything else imports it."""
