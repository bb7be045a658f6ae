"""Discord: which channel plays which session, who is who, and the calls made to Discord."""
