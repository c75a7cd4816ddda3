package smart

// CachedGrants is how many verified tokens s keeps grants of, for tests.
func CachedGrants(s *Service) int { return s.grants.len() }
