package cost

// tpuOnChip are the on-chip memories of one TensorCore of each TPU
// preset, VMEM and SMEM in bytes, as the pinned JAX describes the chips
// (jax 0.12.0.1, jax/_src/tpu_info.py, TpuInfo.vmem_capacity_bytes and
// smem_capacity_bytes: "per core").
var tpuOnChip = map[string][2]int64{
	"tpu-v4":  {16 * mib, 1 * mib},
	"tpu-v5e": {128 * mib, 1 * mib},
	"tpu-v5p": {64 * mib, 1 * mib},
	"tpu-v6e": {128 * mib, 1 * mib},
}

func init() {
	for name, m := range tpuOnChip {
		d := presets[name]
		d.VMEMBytes, d.SMEMBytes = m[0], m[1]
		d.Sources = append(d.Sources, "VMEM and SMEM per TensorCore: jax 0.12.0.1, jax/_src/tpu_info.py (vmem_capacity_bytes, smem_capacity_bytes)")
		presets[name] = d
	}
}
