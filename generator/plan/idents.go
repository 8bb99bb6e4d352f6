package plan

import (
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/generator/model"
)

// EnumConst is the Go name of an enum value's constant: the type name
// followed by the value ("LoggingLevel" + "debug" → "LoggingLevelDebug"; the
// empty value is "Empty").
func EnumConst(typeName, value string) string {
	if value == "" {
		return typeName + "Empty"
	}
	return typeName + GoName(value)
}

// MethodConst is the Go name of a method's constant: "tools/call" →
// "MethodToolsCall".
func MethodConst(method string) string { return "Method" + GoName(method) }

// FieldName is the Go name of an object member's field.
func FieldName(member string) string { return GoName(member) }

// fixedIdents are the package-level names every generated package declares.
var fixedIdents = []string{"Revision", "Batching", "New", "Methods", "LookupMethod", UnknownVariant}

// objectMethods are the methods every generated object has.
var objectMethods = []string{"AppendJSON", "MarshalJSON", "UnmarshalJSON", "UnmarshalJSONFrom"}

// checkIdents fails when two things the emitter would declare get the same
// Go name, or when structs would contain themselves: both would be Go that
// does not compile.
func (p *Plan) checkIdents() error {
	pkg := map[string]string{}
	claim := func(d *model.Decl, name, what string) error {
		if prev, ok := pkg[name]; ok {
			return p.errorf(d, "the Go name %s of %s is also the Go name of %s", name, what, prev)
		}
		pkg[name] = what
		return nil
	}
	for _, n := range fixedIdents {
		pkg[n] = "the package's " + n
	}
	for _, m := range p.Rev.Methods {
		if err := claim(m.Message, MethodConst(m.Name), "the constant of method "+m.Name); err != nil {
			return err
		}
	}
	for _, d := range p.Rev.Decls {
		name := p.Names[d]
		if err := claim(d, name, "definition "+d.Name); err != nil {
			return err
		}
		switch d.Kind {
		case model.Union:
			if err := claim(d, name+"Value", "the variant interface of "+d.Name); err != nil {
				return err
			}
		case model.Enum:
			for _, v := range d.Values {
				if err := claim(d, EnumConst(name, v), fmt.Sprintf("value %q of %s", v, d.Name)); err != nil {
					return err
				}
			}
		case model.Object:
			if err := p.checkObject(d); err != nil {
				return err
			}
		}
	}
	for _, d := range p.Rev.Decls {
		if d.Kind == model.Object {
			if err := p.checkCycle(d, map[*model.Decl]bool{}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Plan) checkObject(d *model.Decl) error {
	members := map[string]string{}
	claim := func(name, what string) error {
		if prev, ok := members[name]; ok {
			return p.errorf(d, "the Go name %s of %s is also the Go name of %s", name, what, prev)
		}
		members[name] = what
		return nil
	}
	for _, m := range objectMethods {
		members[m] = "method " + m
	}
	for _, u := range p.Markers[d] {
		members["is"+p.Names[u]] = "the marker method of union " + u.Name
	}
	for _, f := range d.Fields {
		if err := claim(FieldName(f.Name), fmt.Sprintf("member %q", f.Name)); err != nil {
			return err
		}
		for i, kn := range MetaKeyNames(f.MetaKeys) {
			k := f.MetaKeys[i]
			if err := claim("Meta"+kn, "the getter of _meta."+k.Name); err != nil {
				return err
			}
			if err := claim("SetMeta"+kn, "the setter of _meta."+k.Name); err != nil {
				return err
			}
		}
		if !f.Required && f.Type.Nullable {
			if err := claim(FieldName(f.Name)+"Null", fmt.Sprintf("the null flag of optional nullable member %q", f.Name)); err != nil {
				return err
			}
		}
	}
	for _, c := range d.Consts {
		if !c.Required {
			if err := claim("Omit"+GoName(c.Name), fmt.Sprintf("the presence flag of constant member %q", c.Name)); err != nil {
				return err
			}
		}
	}
	if d.Open {
		if err := claim("Extra", "the field that keeps unknown members"); err != nil {
			return err
		}
	}
	return nil
}

// checkCycle fails when an object contains itself by value: a required
// member whose type is, directly or through other required members, the
// object itself.
func (p *Plan) checkCycle(d *model.Decl, path map[*model.Decl]bool) error {
	if path[d] {
		return p.errorf(d, "the object contains itself through required members; Go cannot represent that by value")
	}
	path[d] = true
	defer delete(path, d)
	for _, f := range d.Fields {
		if !f.Required || f.Type.Kind != model.Ref || f.Type.Nullable {
			continue
		}
		if t := f.Type.Decl.Resolve(); t.Kind == model.Object {
			if err := p.checkCycle(t, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// MetaKeyNames returns the Go name part of each _meta key, for the Meta<Key>
// and SetMeta<Key> accessors: the key without its reverse-DNS prefix
// ("io.modelcontextprotocol/clientCapabilities" → "ClientCapabilities"), or
// the whole key where the short names collide.
func MetaKeyNames(keys []*model.Field) []string {
	short := make([]string, len(keys))
	count := map[string]int{}
	for i, k := range keys {
		n := k.Name
		if j := strings.LastIndexByte(n, '/'); j >= 0 {
			n = n[j+1:]
		}
		short[i] = GoName(n)
		count[short[i]]++
	}
	for i, k := range keys {
		if count[short[i]] > 1 || short[i] == "" {
			short[i] = GoName(k.Name)
		}
	}
	return short
}
