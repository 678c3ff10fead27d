package cost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"

	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// Device is the model of an accelerator the cost estimates are made for. The
// GPU fields follow XLA's se::DeviceDescription as read by the GPU
// performance model (xla/service/gpu/model/gpu_performance_model_base.cc);
// a TPU has no warps, so its launch-related fields are zero and its compute
// time is flops over PeakFlops.
type Device struct {
	// Name is the preset name or the name given in a device file.
	Name string `json:"name"`
	// Kind is "gpu" or "tpu".
	Kind string `json:"kind"`
	// MemoryBandwidth is the DRAM (HBM) bandwidth in bytes per second.
	MemoryBandwidth float64 `json:"memory_bandwidth_bytes_per_s"`
	// MemoryBytes is the DRAM (HBM) capacity of one device, as a program
	// sees it; the memory report checks its peak against it.
	MemoryBytes int64 `json:"memory_bytes"`
	// VMEMBytes and SMEMBytes are a TPU TensorCore's vector and scalar
	// memories (S(1) and S(2) in layouts); the memory report checks their
	// peaks against them. Zero for a GPU.
	VMEMBytes int64 `json:"vmem_bytes,omitempty"`
	SMEMBytes int64 `json:"smem_bytes,omitempty"`
	// PeakFlops is the dense bf16 matrix-unit throughput in flop/s; dots and
	// convolutions are timed against it.
	PeakFlops float64 `json:"peak_flops_per_s"`
	// MatrixPeakFlops is the dense matrix throughput per operand class, in
	// flop/s: "bf16" (and f16), "tf32" (f32 at default precision), "f32"
	// (f32 at HIGHEST precision, which runs on the FP32 lanes), "f64",
	// "s8" (8-bit and smaller integers) and "f8". A class it does not list
	// runs at PeakFlops.
	MatrixPeakFlops map[string]float64 `json:"matrix_peak_flops_per_s,omitempty"`
	// VectorPeakFlops is a TPU's vector-unit throughput in flop/s (what
	// its kernels that are not dots or convolutions compute at); a GPU's
	// comes from ClockGHz, Cores and FPUsPerCore.
	VectorPeakFlops float64 `json:"vector_peak_flops_per_s,omitempty"`
	// InterconnectBandwidth is what one device sends to the others over
	// its links (NVLink, ICI) in bytes per second, one direction: what a
	// collective's ring moves.
	InterconnectBandwidth float64 `json:"interconnect_bandwidth_bytes_per_s,omitempty"`
	// HostBandwidth is the device<->host link in bytes per second, one
	// direction (PCIe): what a copy to or from host memory moves at.
	HostBandwidth float64 `json:"host_bandwidth_bytes_per_s,omitempty"`
	// ClockGHz is the boost clock used by the FPU compute-time formula and
	// by the low-occupancy bandwidth cap.
	ClockGHz float64 `json:"clock_ghz"`
	// Cores is the number of SMs (GPU) or TensorCores (TPU).
	Cores int64 `json:"cores"`
	// FPUsPerCore is the number of FP32 lanes per SM (0 for TPU).
	FPUsPerCore int64 `json:"fpus_per_core"`
	// WarpSize is the number of threads of a warp (32 on NVIDIA GPUs).
	WarpSize int64 `json:"warp_size"`
	// ThreadsPerBlockLimit is the maximum threads of one block.
	ThreadsPerBlockLimit int64 `json:"threads_per_block_limit"`
	// ThreadsPerCoreLimit is the maximum resident threads of one SM.
	ThreadsPerCoreLimit int64 `json:"threads_per_core_limit"`
	// BlockDimLimitX is the largest x grid dimension.
	BlockDimLimitX int64 `json:"block_dim_limit_x"`
	// RegistersPerBlock is the 32-bit registers one block may use
	// (registers_per_block_limit); XLA lets one tile of a block-level
	// kernel take 40% of them.
	RegistersPerBlock int64 `json:"registers_per_block_limit"`
	// SharedMemoryPerBlock is the shared memory one block may use, bytes.
	SharedMemoryPerBlock int64 `json:"shared_memory_per_block"`
	// L2CacheBytes is the L2 (GPU) or on-chip vector memory (TPU) size.
	L2CacheBytes int64 `json:"l2_cache_bytes"`
	// L1CachePerCore is the L1 cache per SM in bytes.
	L1CachePerCore int64 `json:"l1_cache_per_core_bytes"`
	// DRAMToL2TransactionBytes is the DRAM->L2 transaction size (64 on the
	// GPUs XLA models); an uncoalesced read uses element bytes of it.
	DRAMToL2TransactionBytes int64 `json:"dram_to_l2_transaction_bytes"`
	// MemoryTransactionBytesPerClock is what one block can move per clock
	// (XLA: one 32-byte transaction per SM per clock), capping bandwidth
	// at low occupancy.
	MemoryTransactionBytesPerClock int64 `json:"memory_transaction_bytes_per_clock"`
	// KernelLaunchOverheadUS is the fixed cost of one kernel, microseconds.
	KernelLaunchOverheadUS float64 `json:"kernel_launch_overhead_us"`
	// Sources cite where the figures come from.
	Sources []string `json:"sources,omitempty"`
}

// IsGPU reports whether the device is a GPU.
func (d *Device) IsGPU() bool { return d.Kind == "gpu" }

// Validate checks that the fields the estimates divide by are positive.
func (d *Device) Validate() error {
	if d.Kind != "gpu" && d.Kind != "tpu" {
		return fmt.Errorf("device %q: expected kind \"gpu\" or \"tpu\", found %q", d.Name, d.Kind)
	}
	if d.MemoryBandwidth <= 0 || d.PeakFlops <= 0 {
		return fmt.Errorf("device %q: expected positive memory_bandwidth_bytes_per_s and peak_flops_per_s", d.Name)
	}
	if d.IsGPU() {
		if d.ClockGHz <= 0 || d.Cores <= 0 || d.FPUsPerCore <= 0 || d.WarpSize <= 0 ||
			d.ThreadsPerBlockLimit <= 0 || d.ThreadsPerCoreLimit <= 0 || d.DRAMToL2TransactionBytes <= 0 {
			return fmt.Errorf("device %q: expected positive clock_ghz, cores, fpus_per_core, warp_size, thread limits and dram_to_l2_transaction_bytes for a gpu", d.Name)
		}
	}
	return nil
}

// LayoutTarget is the layout target of d's kind (GPU layouts for a GPU, TPU
// tilings otherwise, with what layoutassign.ParseTarget knows of the named
// TPU generation: v6e's 32-byte tuple tables, v4's alternate memory space), with d's name and HBM (and on
// the TPU VMEM and SMEM) capacities for the memory report's verdict.
func (d Device) LayoutTarget() layoutassign.Target {
	t := layoutassign.TPU()
	if d.IsGPU() {
		t = layoutassign.GPU()
	} else if named, err := layoutassign.ParseTarget(d.Name); err == nil {
		t = named
	}
	t.Device, t.HBMBytes = d.Name, d.MemoryBytes
	t.VMEMBytes, t.SMEMBytes = d.VMEMBytes, d.SMEMBytes
	return t
}

// XLATarget is the backend whose cost_analysis() XLACost reproduces for
// d: the TPU compiler's for a TPU, the GPU's otherwise.
func (d Device) XLATarget() XLATarget {
	if d.IsGPU() {
		return XLATarget{Backend: XLAGPU, Device: d.Name}
	}
	return XLATarget{Backend: XLATPU, Device: d.Name}
}

const (
	tb   = 1e12
	gb   = 1e9
	gbit = 1e9 // bits per second, as the TPU documentation states its links
	gib  = 1 << 30
	mib  = 1 << 20
	kib  = 1 << 10
)

// hopperMatrixPeaks are the H100/H200 SXM dense matrix rates (the same
// GH100 die and clocks): the datasheets' with-sparsity figures halved.
var hopperMatrixPeaks = map[string]float64{
	"bf16": 989.4 * tb, "tf32": 494.7 * tb, "f32": 66.9 * tb, "f64": 66.9 * tb, "s8": 1978.9 * tb, "f8": 1978.9 * tb,
}

// MatrixPeak is the matrix throughput for an operand class (see
// MatrixPeakFlops), PeakFlops when the class is not listed.
func (d *Device) MatrixPeak(class string) float64 {
	if p := d.MatrixPeakFlops[class]; p > 0 {
		return p
	}
	return d.PeakFlops
}

// The presets. Figures are the vendors' published ones; dense (not
// sparse) bf16 matrix throughput.
var presets = map[string]Device{
	"h100": hopper(Device{
		Name: "h100", MemoryBandwidth: 3.35 * tb, MemoryBytes: 81559 * mib,
		InterconnectBandwidth: 450 * gb, HostBandwidth: 64 * gb,
		Sources: []string{
			"same datasheet: NVLink 900 GB/s (both directions, 450 GB/s each), PCIe Gen5 128 GB/s (64 GB/s each direction)",
			"NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: 3.35 TB/s HBM3, 80 GB, 989 TFLOPS bf16 dense = 1,979 with sparsity)",
			"memory: nvidia-smi memory.total of the H100 80GB HBM3 the ground truth ran on, 81559 MiB (testdata/groundtruth/h100-measured-env.json)",
			"same datasheet, dense (half the with-sparsity figures): TF32 494.7 TFLOPS, FP32 66.9 TFLOPS, FP64 tensor 66.9 TFLOPS, FP8 and INT8 1,979 TFLOPS/TOPS",
			"NVIDIA H100 Tensor Core GPU Architecture whitepaper (132 SMs, 128 FP32 cores/SM, 50 MB L2, 256 KB L1/shared per SM, 227 KB shared per block, 2048 threads/SM)",
			"XLA gpu_performance_model_base.cc: one 32 B memory transaction per SM per clock",
		},
	}),
	"h200": hopper(Device{
		Name: "h200", MemoryBandwidth: 4.8 * tb, MemoryBytes: 141 * gb,
		InterconnectBandwidth: 450 * gb, HostBandwidth: 64 * gb,
		Sources: []string{
			"same datasheet: NVLink 900 GB/s (450 GB/s each direction), PCIe Gen5 128 GB/s (64 GB/s each direction)",
			"NVIDIA H200 product page / datasheet (H200 SXM: 141 GB HBM3e, 4.8 TB/s, 989 TFLOPS bf16 dense)",
			"same Hopper GH100 die as H100 SXM: 132 SMs, 50 MB L2 (H100 architecture whitepaper)",
		},
	}),
	"a100": nvidiaGPU(Device{
		Name: "a100", MemoryBandwidth: 2.039 * tb, MemoryBytes: 80 * gb,
		InterconnectBandwidth: 300 * gb, HostBandwidth: 32 * gb,
		PeakFlops: 312 * tb, ClockGHz: 1.41,
		Cores: 108, FPUsPerCore: 64,
		SharedMemoryPerBlock: 163 * kib, L2CacheBytes: 40 * mib, L1CachePerCore: 192 * kib,
		MatrixPeakFlops: map[string]float64{"bf16": 312 * tb, "tf32": 156 * tb, "f32": 19.5 * tb, "f64": 19.5 * tb, "s8": 624 * tb},
		Sources: []string{
			"NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM: 2,039 GB/s, 312 TFLOPS bf16 dense; TF32 156, FP32 19.5, FP64 tensor 19.5 TFLOPS, INT8 624 TOPS dense; NVLink 600 GB/s, 300 each direction; PCIe Gen4 64 GB/s, 32 each direction)",
			"NVIDIA A100 Tensor Core GPU Architecture whitepaper (108 SMs, 64 FP32 cores/SM, 1410 MHz boost, 40 MB L2, 192 KB L1/shared per SM, 163 KB shared per block)",
		},
	}),
	"tpu-v4": tpu(tpuSpec{name: "tpu-v4", bandwidth: 1200 * gb, bytes: 32 * gib, peak: 275 * tb, int8: 275 * tb, cores: 2,
		mxus: 4, mxuDim: 128, ici: 2400 * gbit,
		source: "Google Cloud TPU documentation, TPU v4: 275 TFLOPS bf16 and int8 per chip, HBM2 capacity and bandwidth 32 GiB, 1200 GBps, two TensorCores per chip (one JAX device in megacore mode) of four 128x128 MXUs, interchip interconnect 2,400 Gbps"}),
	"tpu-v5e": tpu(tpuSpec{name: "tpu-v5e", bandwidth: 687 * gib, bytes: 16 * gib, peak: 197 * tb, int8: 394 * tb, cores: 1,
		mxus: 4, mxuDim: 128, ici: 1600 * gbit,
		source: "Google Cloud TPU documentation, TPU v5e: 197 TFLOPS bf16, 394 TOPS int8, 16 GiB HBM2, 819 GBps HBM bandwidth per chip (the page writes \"16 GB\"; HBM is sized in binary units), one TensorCore of four 128x128 MXUs, interchip interconnect 1,600 Gbps; " +
			"HBM bandwidth as the TPU compiler models it: cost_analysis() of libtpu 0.0.52 gives optimal_seconds = bytes accessed / 687 GiB/s (737.66 GB/s, 90% of the page's figure) on every memory-bound v5e compile of testdata/groundtruth (v6e's equals its page's 1638 GBps)"}),
	"tpu-v5p": tpu(tpuSpec{name: "tpu-v5p", bandwidth: 2765 * gb, bytes: 95 * gib, peak: 459 * tb, int8: 918 * tb, cores: 2,
		mxus: 4, mxuDim: 128, ici: 4800 * gbit,
		source: "Google Cloud TPU documentation, TPU v5p: 459 TFLOPS bf16, 918 TOPS int8, 95 GiB HBM2e, 2,765 GBps HBM bandwidth per chip, 2 TensorCores of four 128x128 MXUs, interchip interconnect 4,800 Gbps"}),
	"tpu-v6e": tpu(tpuSpec{name: "tpu-v6e", bandwidth: 1638 * gb, bytes: 32 * gib, peak: 918 * tb, int8: 1836 * tb, cores: 1,
		mxus: 4, mxuDim: 256, ici: 3584 * gbit,
		source: "Google Cloud TPU documentation, TPU v6e (Trillium): 918 TFLOPs bf16 and 1836 TOPS int8 peak per chip, HBM capacity per chip 32 GB (binary units, as v4's 32 GiB), HBM bandwidth 1638 GBps, one TensorCore of 256x256 MXUs, interchip interconnect 3,584 Gbps"}),
}

// tpuSpec is what the vendor publishes of a TPU chip: HBM bandwidth
// (bytes/s) and capacity, dense bf16 and int8 matrix peaks (flop/s),
// TensorCores, MXUs per TensorCore and their size, interchip interconnect
// (bits/s, both directions).
type tpuSpec struct {
	name                string
	bandwidth           float64
	bytes               int64
	peak, int8          float64
	cores, mxus, mxuDim int64
	ici                 float64
	source              string
}

// tpuVectorALUs is the vector unit's ALUs per TensorCore: 128 lanes of 8
// sublanes with 2 ALUs each, one operation per cycle (TPU v2/v3,
// Norrie et al., "The Design Process for Google's Training Chips: TPUv2
// and TPUv3", IEEE Micro 2021; assumed unchanged since).
const tpuVectorALUs = 8 * 128 * 2

// tpu is a TPU preset from its published figures, without per-kernel
// launch overhead. The clock is what the bf16 peak implies (peak over
// TensorCores * MXUs * 2*dim^2 flops per cycle); the vector unit does
// tpuVectorALUs operations per cycle per TensorCore. f32 at default
// precision multiplies in one bf16 pass on the MXU (XLA's and JAX's
// default on TPU), at HIGHEST in six (the bf16_6x algorithm).
func tpu(t tpuSpec) Device {
	clock := t.peak / float64(t.cores*t.mxus*2*t.mxuDim*t.mxuDim)
	return Device{
		Name: t.name, Kind: "tpu",
		MemoryBandwidth: t.bandwidth, MemoryBytes: t.bytes,
		PeakFlops: t.peak, Cores: t.cores, ClockGHz: clock / 1e9,
		MatrixPeakFlops:       map[string]float64{"bf16": t.peak, "tf32": t.peak, "f32": t.peak / 6, "s8": t.int8},
		VectorPeakFlops:       float64(t.cores*tpuVectorALUs) * clock,
		InterconnectBandwidth: t.ici / 8 / 2,
		Sources: []string{t.source,
			"clock: the bf16 peak over TensorCores * MXUs * 2 * dim^2; vector unit: 8 sublanes x 128 lanes x 2 ALUs per TensorCore (TPUv2/v3, IEEE Micro 2021)",
			"f32 matmuls: one bf16 pass at default precision, six at HIGHEST (XLA's bf16_6x dot algorithm)"},
	}
}

// hopper completes d, an H100 or H200 SXM, with what the two share: the
// GH100 die and its clocks (132 SMs of 128 FP32 lanes, 50 MB L2, 1.98 GHz
// boost). They differ in their HBM.
func hopper(d Device) Device {
	d.PeakFlops, d.ClockGHz = 989.4*tb, 1.98
	d.Cores, d.FPUsPerCore = 132, 128
	d.SharedMemoryPerBlock, d.L2CacheBytes, d.L1CachePerCore = 227*kib, 50*mib, 256*kib
	d.MatrixPeakFlops = hopperMatrixPeaks
	return nvidiaGPU(d)
}

// nvidiaGPU completes d with what the NVIDIA GPUs of the presets share:
// 32-thread warps, 1024 threads a block and 2048 an SM, 2^31-1 blocks in x,
// 64 Ki registers a block,
// 64-byte DRAM->L2 transactions, 32 bytes per SM per clock, a 1 us launch.
func nvidiaGPU(d Device) Device {
	d.Kind = "gpu"
	d.WarpSize = 32
	d.ThreadsPerBlockLimit, d.ThreadsPerCoreLimit, d.BlockDimLimitX = 1024, 2048, 1<<31-1
	d.RegistersPerBlock = 64 * 1024
	d.DRAMToL2TransactionBytes, d.MemoryTransactionBytesPerClock = 64, 32
	d.KernelLaunchOverheadUS = 1
	return d
}

// PresetNames lists the device presets in sorted order.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Preset returns a copy of the named device model ("h100", "h200", "a100",
// "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e").
func Preset(name string) (Device, error) {
	d, ok := presets[name]
	if !ok {
		return Device{}, fmt.Errorf("unknown device %q: expected one of %v or a JSON device file", name, PresetNames())
	}
	d.Sources = slices.Clone(d.Sources)
	d.MatrixPeakFlops = maps.Clone(d.MatrixPeakFlops)
	return d, nil
}

// ReadDevice decodes a JSON device file (the field names of Device's json
// tags). Fields left out take the values of the preset named in "base" if
// given, else zero; the result must Validate.
func ReadDevice(r io.Reader) (Device, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Device{}, err
	}
	var base struct {
		Base string `json:"base"`
	}
	if err := json.Unmarshal(data, &base); err != nil {
		return Device{}, fmt.Errorf("device file: %w", err)
	}
	var d Device
	if base.Base != "" {
		if d, err = Preset(base.Base); err != nil {
			return Device{}, err
		}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Device{}, fmt.Errorf("device file: %w", err)
	}
	delete(raw, "base")
	clean, _ := json.Marshal(raw)
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return Device{}, fmt.Errorf("device file: %w", err)
	}
	if err := d.Validate(); err != nil {
		return Device{}, err
	}
	return d, nil
}

// LookupDevice returns the preset called name, or, when name is not a
// preset, the device file at that path read with open.
func LookupDevice(name string, open func(string) (io.ReadCloser, error)) (Device, error) {
	if _, ok := presets[name]; ok {
		return Preset(name)
	}
	if open == nil {
		return Preset(name)
	}
	f, err := open(name)
	if err != nil {
		return Device{}, fmt.Errorf("unknown device %q: expected one of %v or a JSON device file: %w", name, PresetNames(), err)
	}
	defer f.Close()
	return ReadDevice(f)
}
