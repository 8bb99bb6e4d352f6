package generator

import "errors"

func generate(cfg Config) ([]File, error) { return nil, errors.New("generator: not implemented yet") }
