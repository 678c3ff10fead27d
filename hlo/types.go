package hlo

import "fmt"

// PrimitiveType is an XLA element type such as f32 or bf16.
type PrimitiveType uint8

// The primitive types XLA prints, in the order of xla_data.proto where it
// matters for nothing but readability.
const (
	Invalid PrimitiveType = iota
	PRED
	S1
	S2
	S4
	S8
	S16
	S32
	S64
	U1
	U2
	U4
	U8
	U16
	U32
	U64
	F16
	BF16
	F32
	F64
	C64
	C128
	F8E5M2
	F8E4M3FN
	F8E4M3B11FNUZ
	F8E5M2FNUZ
	F8E4M3FNUZ
	F8E4M3
	F8E3M4
	F8E8M0FNU
	F4E2M1FN
	F6E2M3FN
	F6E3M2FN
	TUPLE
	TOKEN
	OPAQUE
	numPrimitiveTypes
)

type typeInfo struct {
	name string
	bits int // storage width of one element; 0 for non-array types
}

var typeInfos = [numPrimitiveTypes]typeInfo{
	Invalid:       {"invalid", 0},
	PRED:          {"pred", 8},
	S1:            {"s1", 1},
	S2:            {"s2", 2},
	S4:            {"s4", 4},
	S8:            {"s8", 8},
	S16:           {"s16", 16},
	S32:           {"s32", 32},
	S64:           {"s64", 64},
	U1:            {"u1", 1},
	U2:            {"u2", 2},
	U4:            {"u4", 4},
	U8:            {"u8", 8},
	U16:           {"u16", 16},
	U32:           {"u32", 32},
	U64:           {"u64", 64},
	F16:           {"f16", 16},
	BF16:          {"bf16", 16},
	F32:           {"f32", 32},
	F64:           {"f64", 64},
	C64:           {"c64", 64},
	C128:          {"c128", 128},
	F8E5M2:        {"f8e5m2", 8},
	F8E4M3FN:      {"f8e4m3fn", 8},
	F8E4M3B11FNUZ: {"f8e4m3b11fnuz", 8},
	F8E5M2FNUZ:    {"f8e5m2fnuz", 8},
	F8E4M3FNUZ:    {"f8e4m3fnuz", 8},
	F8E4M3:        {"f8e4m3", 8},
	F8E3M4:        {"f8e3m4", 8},
	F8E8M0FNU:     {"f8e8m0fnu", 8},
	F4E2M1FN:      {"f4e2m1fn", 4},
	F6E2M3FN:      {"f6e2m3fn", 6},
	F6E3M2FN:      {"f6e3m2fn", 6},
	TUPLE:         {"tuple", 0},
	TOKEN:         {"token", 0},
	OPAQUE:        {"opaque", 0},
}

var typesByName = func() map[string]PrimitiveType {
	m := make(map[string]PrimitiveType, numPrimitiveTypes)
	for t := PRED; t < numPrimitiveTypes; t++ {
		m[typeInfos[t].name] = t
	}
	return m
}()

// String returns the type's name as XLA prints it ("f32", "bf16", "pred").
func (t PrimitiveType) String() string {
	if t < numPrimitiveTypes {
		return typeInfos[t].name
	}
	return fmt.Sprintf("PrimitiveType(%d)", uint8(t))
}

// BitWidth is the storage width of one element in bits: 8 for pred, 4 for
// s4, 0 for tuple, token and opaque.
func (t PrimitiveType) BitWidth() int {
	if t < numPrimitiveTypes {
		return typeInfos[t].bits
	}
	return 0
}

// IsArray reports whether values of the type are array elements (not tuple,
// token or opaque).
func (t PrimitiveType) IsArray() bool { return t > Invalid && t < TUPLE }

// IsFloat reports whether t is a real floating-point type.
func (t PrimitiveType) IsFloat() bool { return t >= F16 && t <= F64 || t >= F8E5M2 && t <= F6E3M2FN }

// IsComplex reports whether t is c64 or c128.
func (t PrimitiveType) IsComplex() bool { return t == C64 || t == C128 }

// IsInteger reports whether t is a signed or unsigned integer type.
func (t PrimitiveType) IsInteger() bool { return t >= S1 && t <= U64 }

// IsSigned reports whether t is a signed integer type.
func (t PrimitiveType) IsSigned() bool { return t >= S1 && t <= S64 }

// LookupPrimitiveType returns the type with XLA name s, or false.
func LookupPrimitiveType(s string) (PrimitiveType, bool) {
	t, ok := typesByName[s]
	return t, ok
}
