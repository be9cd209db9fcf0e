"""Date and number formats where Django's own do not suit the clubs (``FORMAT_MODULE_PATH``)."""
