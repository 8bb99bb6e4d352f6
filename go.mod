module github.com/mcpgen/mcpgen

go 1.25.0

require (
	github.com/go-json-experiment/json v0.0.0-20251027170946-4849db3c2f7e
	github.com/google/go-cmp v0.7.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/spf13/pflag v1.0.10
)

require (
	github.com/dave/jennifer v1.7.1
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/yosida95/uritemplate/v3 v3.0.2
)

require golang.org/x/oauth2 v0.36.0

require go.yaml.in/yaml/v3 v3.0.6
