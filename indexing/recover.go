package indexing

// ArithmeticError is the panic value of expression constructors given a
// divisor or modulus they cannot take (FloorDiv, CeilDiv by zero, Mod by a
// non-positive number).
type ArithmeticError struct{ Msg string }

// Error returns "indexing: " and the message.
func (e ArithmeticError) Error() string { return "indexing: " + e.Msg }

// Recover turns the panic of an expression constructor (an OverflowError
// or ArithmeticError: a size or index past int64, a zero divisor) into
// *err, so that an analysis built on expressions returns an error for an
// input it cannot handle; any other panic goes on. Use it deferred:
//
//	defer indexing.Recover(&err)
func Recover(err *error) {
	switch r := recover().(type) {
	case nil:
	case OverflowError:
		*err = r
	case ArithmeticError:
		*err = r
	default:
		panic(r)
	}
}
