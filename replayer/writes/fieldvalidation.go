package writes

import (
	"fmt"
	"mime"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/lwreplay/lwreplay/internal/builtin"
)

// strictJSON decodes as kube-apiserver's handlers do when fieldValidation
// is Strict or Warn: unknown and duplicate fields are a strict decoding
// error that lists each.
var strictJSON = serializerjson.NewSerializerWithOptions(serializerjson.DefaultMetaFactory, builtin.Scheme, builtin.Scheme,
	serializerjson.SerializerOptions{Strict: true})

// checkFields applies req's fieldValidation to a create or update body of
// a built-in kind in JSON or YAML, as kube-apiserver's handlers do:
//   - Strict (kubectl's default) answers an unknown or duplicate field 400,
//     with every one listed;
//   - Warn (the default) and an empty fieldValidation return one warning
//     each;
//   - Ignore checks nothing.
//
// A custom resource's unknown fields (pruned against its CRD's schema) are
// not checked. Nor are protobuf bodies, which carry no unknown field.
func checkFields(req Request) ([]string, error) {
	if req.FieldValidation == metav1.FieldValidationIgnore {
		return nil, nil
	}
	body, ok := typedBody(req)
	if !ok {
		return nil, nil
	}
	k := gvk(req.Kind)
	into, err := builtin.Scheme.New(k)
	if err != nil {
		return nil, nil
	}
	_, _, err = strictJSON.Decode(body, &k, into)
	return judgeFields(req, err)
}

// typedBody is req's body as JSON when it is a built-in kind's JSON or
// YAML (the bodies fieldValidation judges). It is not ok for others.
func typedBody(req Request) ([]byte, bool) {
	if !req.Kind.Builtin {
		return nil, false
	}
	media, _, err := mime.ParseMediaType(req.ContentType)
	if req.ContentType == "" {
		media, err = mediaJSON, nil
	}
	if err != nil || (media != mediaJSON && media != mediaYAML) {
		return nil, false
	}
	body := req.Body
	if media == mediaYAML {
		if body, err = yaml.ToJSON(body); err != nil {
			return nil, false // decodeObject answers it
		}
	}
	return body, true
}

// judgeFields judges err, the strict decode's error of req's body, by
// req's fieldValidation: Strict answers 400, Warn (or none) returns a
// warning for each unknown or duplicate field, Ignore nothing.
func judgeFields(req Request, err error) ([]string, error) {
	strict, ok := runtime.AsStrictDecodingError(err)
	if !ok || req.FieldValidation == metav1.FieldValidationIgnore {
		return nil, nil
	}
	if req.FieldValidation == metav1.FieldValidationStrict {
		k := gvk(req.Kind)
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", k.Kind, k.Version, k.Kind, err))
	}
	var out []string
	for _, e := range strict.Errors() {
		out = append(out, e.Error())
	}
	return out, nil
}

// patchStrict is what a patch's decoding found that fieldValidation
// judges. It holds the strict decoding error of the patched object (nil:
// none), and the value kube-apiserver's Invalid names. That value is the
// patched JSON for a JSON or merge patch, the patch map for a strategic
// merge patch.
type patchStrict struct {
	value string
	err   error
}

// apply judges p as the patch handler does: Strict answers 422 Invalid
// on the field "patch"; Warn (or none) returns a warning for each unknown
// or duplicate field; Ignore nothing.
func (p patchStrict) apply(validation string) ([]string, error) {
	strict, ok := runtime.AsStrictDecodingError(p.err)
	if !ok || validation == metav1.FieldValidationIgnore {
		return nil, nil
	}
	if validation == metav1.FieldValidationStrict {
		return nil, apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), p.value, strict.Error())})
	}
	var out []string
	for _, e := range strict.Errors() {
		out = append(out, e.Error())
	}
	return out, nil
}
