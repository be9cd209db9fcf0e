"""The games app keeps no tables of its own: hand records are stored with the sessions they belong
to (``tournaments.models.Hand``). The app stays installed for its migration history, which hands
its tables over to the tournaments app."""
