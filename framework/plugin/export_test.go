package plugin

// StartForTest starts (or reuses) a plugin and returns a function telling
// whether its process has exited.
func StartForTest(h *Host, name, path string) (func() bool, error) {
	p, err := h.start(name, path, "")
	if err != nil {
		return nil, err
	}
	return p.client.Exited, nil
}
