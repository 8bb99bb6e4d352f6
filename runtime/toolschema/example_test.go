package toolschema_test

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/toolschema"
)

func Example() {
	type Args struct {
		City string `json:"city" description:"City name"`
		Days int    `json:"days" minimum:"1" maximum:"7" default:"3"`
	}
	schema, err := toolschema.For[Args]()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(schema))

	in, err := toolschema.NewInput[Args](schema)
	if err != nil {
		fmt.Println(err)
		return
	}
	args, err := in.Decode([]byte(`{"city":"Oslo"}`))
	fmt.Println(args, err)
	_, err = in.Decode([]byte(`{"days":99}`))
	fmt.Println(err)
	// Output:
	// {"additionalProperties":false,"properties":{"city":{"description":"City name","type":"string"},"days":{"default":3,"maximum":7,"minimum":1,"type":"integer"}},"required":["city"],"type":"object"}
	// {Oslo 3} <nil>
	// /city: required; /days: must be <= 7
}
