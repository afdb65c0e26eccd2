package api

// BuildStamp is the compile date and commit /api/version reports.
func BuildStamp() (date, commit string) { return buildStamp.date, buildStamp.commit }
