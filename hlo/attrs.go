package hlo

// Typed views of the instruction attributes that analyses read. The parser
// fills them from the verbatim Attrs; printing always uses Attrs, so a
// module prints back exactly as it was written.

// SliceDim is one dimension of slice={[start:limit:stride], ...}.
type SliceDim struct {
	Start, Limit, Stride int64
}

// PadDim is one dimension of padding=low_high_interior.
type PadDim struct {
	Low, High, Interior int64
}

// WindowDim is one dimension of window={size=... stride=... pad=... lhs_dilate=... rhs_dilate=... rhs_reversal=...}.
type WindowDim struct {
	Size           int64
	Stride         int64 // 1 when absent
	PadLow         int64
	PadHigh        int64
	BaseDilation   int64 // lhs_dilate; 1 when absent
	WindowDilation int64 // rhs_dilate; 1 when absent
	Reversal       bool
}

// DotDims are the dot dimension numbers.
type DotDims struct {
	LhsBatch, RhsBatch             []int64
	LhsContracting, RhsContracting []int64
}

// ConvDims are convolution dimension numbers, decoded from dim_labels such
// as "b01f_01io->b01f".
type ConvDims struct {
	InputBatch, InputFeature   int64
	InputSpatial               []int64
	KernelInputFeature         int64
	KernelOutputFeature        int64
	KernelSpatial              []int64
	OutputBatch, OutputFeature int64
	OutputSpatial              []int64
	Labels                     string // verbatim dim_labels
}

// GatherDims are gather dimension numbers.
type GatherDims struct {
	OffsetDims               []int64
	CollapsedSliceDims       []int64
	StartIndexMap            []int64
	IndexVectorDim           int64
	OperandBatchingDims      []int64
	StartIndicesBatchingDims []int64
	SliceSizes               []int64
	IndicesAreSorted         bool
}

// ScatterDims are scatter dimension numbers.
type ScatterDims struct {
	UpdateWindowDims           []int64
	InsertedWindowDims         []int64
	ScatterDimsToOperandDims   []int64
	IndexVectorDim             int64
	InputBatchingDims          []int64
	ScatterIndicesBatchingDims []int64
	IndicesAreSorted           bool
	UniqueIndices              bool
}

// TypedAttrs holds the parsed form of the attributes analyses read. A field
// is nil/zero when the instruction has no such attribute; TupleIndex and
// IotaDimension are then -1, FeatureGroupCount and BatchGroupCount 1
// (NewTypedAttrs returns that value).
type TypedAttrs struct {
	Dimensions        []int64     // dimensions={...} (broadcast, transpose, reduce, reverse, concatenate, ...)
	Slice             []SliceDim  // slice={...}
	Padding           []PadDim    // padding=... on pad
	Window            []WindowDim // window={...}
	Dot               *DotDims
	Conv              *ConvDims
	Gather            *GatherDims
	Scatter           *ScatterDims
	DynamicSliceSizes []int64   // dynamic_slice_sizes={...}
	FusionKind        string    // kind=kLoop, kInput, kOutput, kCustom
	TupleIndex        int64     // index=N of get-tuple-element; -1 when absent
	Direction         string    // direction=LT, ...
	IotaDimension     int64     // iota_dimension=N; -1 when absent
	ReplicaGroups     [][]int64 // replica_groups={{0,1},{2,3}}
	FeatureGroupCount int64     // 1 when absent
	BatchGroupCount   int64     // 1 when absent
}

// NewTypedAttrs returns the typed attributes of an instruction that has
// none of them: nil and zero fields, -1 for TupleIndex and IotaDimension, 1
// for FeatureGroupCount and BatchGroupCount.
func NewTypedAttrs() *TypedAttrs {
	t := noTypedAttrs
	return &t
}

// noTypedAttrs is the shared, read-only Typed of parsed instructions that
// have no typed attribute.
var noTypedAttrs = TypedAttrs{TupleIndex: -1, IotaDimension: -1, FeatureGroupCount: 1, BatchGroupCount: 1}

// sharedNoTyped is what parsed instructions without typed attributes point to.
var sharedNoTyped = NewTypedAttrs()
