"""Statistics over dice: goodness of fit and luck against exact odds."""
