package validate

// reservedKeys is filled in with the metadata rules.
func reservedKeys([]byte) map[string]bool { return nil }
