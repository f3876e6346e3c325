#!/usr/bin/env python3
"""Writes the published per-kernel measurements of calibrate/measurements/*.csv.

Every number below is transcribed from the source named beside it (a repository file at a
commit, a pull request, or a figure whose bars carry printed values); nothing is estimated.
Rates are converted to calibrate's samples format: seconds = FLOPs / (TFLOP/s * 1e12), and the
`flops` column holds the FLOPs the source counted (GEMM: 2*M*N*K summed over groups; attention:
FlashAttention's convention, forward 4*batch*seqlen^2*heads*head_dim, halved when causal,
backward 2.5x forward, forward+backward 3.5x forward). Cells are comma-free (the samples reader
splits on commas). Run from the repository root: python3 calibrate/measurements/make_measurements.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = "benchmark,dtype,m,n,k,bytes,gpus,seconds,flops,source"


def write(name, meta, rows):
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        for key, value in meta:
            assert "\n" not in value
            f.write(f"# {key}: {value}\n")
        f.write(HEADER + "\n")
        for r in rows:
            cells = [r["benchmark"], r["dtype"], str(r["m"]), str(r["n"]), str(r["k"]),
                     f"{r['bytes']:.0f}", "1", f"{r['seconds']:.6e}", f"{r['flops']:.6e}",
                     r["source"]]
            assert all("," not in c for c in cells), cells
            f.write(",".join(cells) + "\n")
    print(f"{name}: {len(rows)} rows")


def gemm_row(benchmark, dtype, groups, m, n, k, tflops, source, a_bytes=1, c_bytes=2):
    """One GEMM (or grouped GEMM of `groups` equal groups of m rows): total FLOPs and the bytes
    of A, B and C once (B per group: each expert has its own weights)."""
    flops = 2.0 * groups * m * n * k
    nbytes = groups * (a_bytes * m * k + a_bytes * n * k + c_bytes * m * n)
    return dict(benchmark=benchmark, dtype=dtype, m=groups * m, n=n, k=k, bytes=nbytes,
                seconds=flops / (tflops * 1e12), flops=flops, source=source)


def bf16_and_fp8_rows(table, n, k, source, bf16_label, fp8_label, unit=""):
    """GEMM rows of a benchmark table of (M, BF16 TFLOP/s, FP8 TFLOP/s) at one N, K: BF16 rows
    (2-byte operands) first, then FP8, each citing its column (the value as the table prints
    it, `unit` after it)."""
    rows = [gemm_row("gemm", "bf16", 1, m, n, k, b,
                     f"{source} batch_size={m} {bf16_label}: {b}{unit}", a_bytes=2)
            for m, b, _ in table]
    rows += [gemm_row("gemm", "fp8", 1, m, n, k, f,
                      f"{source} batch_size={m} {fp8_label}: {f}{unit}")
             for m, _, f in table]
    return rows


def attn_fwd_flops(seqlen, head_dim, heads, batch, causal):
    return 4.0 * batch * seqlen * seqlen * heads * head_dim / (2 if causal else 1)


# ---------------------------------------------------------------------------------------------
# H800: DeepGEMM README, last version with the performance tables (327ec92, 2025-04-09; the
# tables were removed on 2025-04-14 in 37aa127). "H800 SXM5 with NVCC 12.8", FP8 E4M3 inputs with
# fine-grained scaling (1x128 activations, 128x128 weights), BF16 output.
DG_COMMIT = "327ec92f6977e7fee022cb76a8f273b75483c3d8"
DG_SRC = f"DeepGEMM README.md@{DG_COMMIT[:7]}"
dg_normal = [  # M, N, K, TFLOPS
    (64, 2112, 7168, 206), (64, 24576, 1536, 289), (64, 32768, 512, 219),
    (64, 7168, 16384, 336), (64, 4096, 7168, 287), (64, 7168, 2048, 295),
    (128, 2112, 7168, 352), (128, 24576, 1536, 535), (128, 32768, 512, 358),
    (128, 7168, 16384, 645), (128, 4096, 7168, 533), (128, 7168, 2048, 510),
    (4096, 2112, 7168, 1127), (4096, 24576, 1536, 1212), (4096, 32768, 512, 775),
    (4096, 7168, 16384, 1520), (4096, 4096, 7168, 1410), (4096, 7168, 2048, 1168),
]
dg_contiguous = [  # groups, M per group, N, K, TFLOPS
    (4, 8192, 4096, 7168, 1346), (4, 8192, 7168, 2048, 1214),
    (8, 4096, 4096, 7168, 1346), (8, 4096, 7168, 2048, 1214),
]
dg_masked = [
    (1, 1024, 4096, 7168, 1233), (1, 1024, 7168, 2048, 925),
    (2, 512, 4096, 7168, 1040), (2, 512, 7168, 2048, 916),
    (4, 256, 4096, 7168, 932), (4, 256, 7168, 2048, 815),
]
rows = [gemm_row("gemm", "fp8", 1, m, n, k, t,
                 f"{DG_SRC} 'Normal GEMMs for dense models' M={m} N={n} K={k}: {t} TFLOPS")
        for m, n, k, t in dg_normal]
rows += [gemm_row("grouped_gemm", "fp8", g, m, n, k, t,
                  f"{DG_SRC} 'Grouped GEMMs (contiguous layout)' groups={g} M/group={m} N={n} "
                  f"K={k}: {t} TFLOPS")
         for g, m, n, k, t in dg_contiguous]
rows += [gemm_row("grouped_gemm", "fp8", g, m, n, k, t,
                  f"{DG_SRC} 'Grouped GEMMs (masked layout)' groups={g} M/group={m} N={n} "
                  f"K={k}: {t} TFLOPS")
         for g, m, n, k, t in dg_masked]
write("h800-deepgemm.csv", [
    ("gpu", "NVIDIA H800 80GB HBM3"),
    ("source", "deepseek-ai/DeepGEMM README.md 'Performance' tables"),
    ("url", f"https://github.com/deepseek-ai/DeepGEMM/blob/{DG_COMMIT}/README.md"),
    ("commit", f"{DG_COMMIT} (2025-04-09; last README version with the tables)"),
    ("date", "2025-04-09"),
    ("measured", "DeepGEMM FP8 GEMM kernels on H800 SXM5 (NVCC 12.8): E4M3 A and B with 1x128 / 128x128 block scales and CUDA-core promotion; BF16 D; NT layout; grouped = M-grouped (experts share N and K)"),
    ("conversion", "seconds = 2*groups*M*N*K / (TFLOPS*1e12); flops = that total; bytes = groups*(M*K + N*K + 2*M*N) (fp8 A and B; bf16 D; scales ignored) which reproduces the table's GB/s column"),
    ("rows", "m = groups * M per group; the masked layout's M per group is the table's expected M per group"),
], rows)

# ---------------------------------------------------------------------------------------------
# H100: vLLM pull request #23280 (benchmark log in its description): torch.mm BF16 (cuBLAS) and
# CUTLASS W8A8 block-FP8 (128x128 weight blocks, 1x128 activation groups) for DeepSeek-V3's
# N=2112 K=7168 on the GPU whose tuned-config file is 'device_name=NVIDIA_H100_80GB_HBM3'.
VL_SRC = "vLLM PR #23280 description 'Benchmarking DeepSeek-V3 N=2112 K=7168'"
vl_h100 = [  # M, torch-bf16, w8a8-block-fp8-cutlass (TFLOP/s)
    (64, 163.467729, 55.792628), (128, 275.740510, 106.531540), (256, 401.863069, 192.465136),
    (512, 566.262626, 322.256922), (1024, 619.771938, 350.649020),
    (2048, 648.192575, 426.640953), (4096, 715.781529, 456.931446),
    (8192, 666.385367, 489.655688),
]
rows = bf16_and_fp8_rows(vl_h100, 2112, 7168, VL_SRC, "torch-bf16",
                         "w8a8-block-fp8-cutlass", unit=" TFLOP/s")
write("h100-vllm-pr23280.csv", [
    ("gpu", "NVIDIA H100 80GB HBM3"),
    ("source", "vllm-project/vllm pull request #23280 ('[Perf] Use upstream CUTLASS for SM90 Block FP8 kernel') description: benchmarks/kernels block-FP8 GEMM benchmark log"),
    ("url", "https://github.com/vllm-project/vllm/pull/23280"),
    ("date", "2025-09-10"),
    ("measured", "N=2112 K=7168 (DeepSeek-V3 fused q_a/kv_a projection) for batch_size M = 64..8192: torch.mm BF16 (cuBLAS) and vLLM's CUTLASS W8A8 block-FP8 GEMM; the GPU is read from the log line naming the tuned config 'device_name=NVIDIA_H100_80GB_HBM3'"),
    ("conversion", "seconds = 2*M*N*K / (TFLOP/s*1e12); rows M < 64 (1 and 16: memory-bound GEMV-like, priced by the cost model's roofline) and M = 16384 (cut off in the stored log) left out"),
], rows)

# ---------------------------------------------------------------------------------------------
# H100 attention. FlashAttention benchmark convention (benchmarks/benchmark_flash_attention.py;
# the FA3 paper uses the same): batch*seqlen = 16384 tokens, hidden 2048 = heads*head_dim.
SEQS = [512, 1024, 2048, 4096, 8192, 16384]
SEQ_LABEL = {512: "512", 1024: "1k", 2048: "2k", 4096: "4k", 8192: "8k", 16384: "16k"}


def fa_rows(table, mode, dtype, src, kernel):
    out = []
    for (hd, causal), values in table.items():
        for s, tf in zip(SEQS, values):
            if tf is None:
                continue
            fwd = attn_fwd_flops(s, hd, 2048 // hd, 16384 // s, causal)
            flops = fwd * {"fwd": 1.0, "bwd": 2.5, "fwd_bwd": 3.5}[mode]
            out.append(dict(benchmark="attention", dtype=dtype, m=s, n=s, k=hd, bytes=0,
                            seconds=flops / (tf * 1e12), flops=flops,
                            source=f"{src} {kernel} {mode} head_dim={hd} "
                                   f"{'causal' if causal else 'non-causal'} seqlen={SEQ_LABEL[s]} "
                                   f"batch={16384 // s} heads={2048 // hd}: {tf} TFLOPs/s"))
    return out


FA_COMMIT3 = "7ef24848cf2f855077cef88fe122775b727dcd74"
FA3_SRC = f"flash-attention assets/flash3_fp16_fwd.png@{FA_COMMIT3[:7]}"
# Bar labels read from the figure (FA3 paper's forward-speed figure, H100 80GB SXM5, FP16/BF16).
# None: the label of head dim 256 non-causal 1k is hidden behind the legend.
fa3 = {
    (64, False): [333, 392, 460, 476, 496, 497],
    (64, True): [197, 265, 371, 420, 460, 473],
    (128, False): [467, 565, 625, 638, 646, 648],
    (128, True): [292, 423, 521, 579, 602, 616],
    (256, False): [482, None, 707, 736, 746, 756],
    (256, True): [286, 427, 537, 612, 628, 642],
}
cudnn = {
    (64, False): [335, 373, 395, 408, 412, 413],
    (64, True): [225, 288, 334, 363, 379, 388],
    (128, False): [497, 574, 617, 609, 600, 595],
    (128, True): [315, 410, 484, 518, 529, 539],
    (256, False): [470, 546, 580, 581, 580, 581],
    (256, True): [308, 391, 450, 483, 497, 509],
}
fa3_meta = [
    ("gpu", "NVIDIA H100 80GB HBM3"),
    ("url", f"https://github.com/Dao-AILab/flash-attention/blob/{FA_COMMIT3}/assets/flash3_fp16_fwd.png"),
    ("commit", f"{FA_COMMIT3} (2024-07-11; the figure of the README's FlashAttention-3 section and of Shah et al. 2024 arXiv 2407.08608 forward-speed figure)"),
    ("date", "2024-07-11"),
    ("conversion", "printed bar labels in TFLOPs/s; seconds = flops / (TFLOPs/s*1e12); flops = 4*batch*seqlen^2*heads*head_dim (halved when causal) with batch*seqlen = 16384 and heads*head_dim = 2048; m = n = seqlen and k = head_dim describe the shape"),
    ("limits", "forward only: the backward and FP8 figures of the paper are not in the repository and no readable copy was found; head_dim 256 non-causal seqlen 1k is hidden behind the legend and left out"),
]
write("h100-flashattention3.csv", [fa3_meta[0], ("source", "FlashAttention-3 forward speed on H100 80GB SXM5 (BF16/FP16) figure: the FlashAttention-3 bars")] + fa3_meta[1:] + [
    ("measured", "FlashAttention-3 (Hopper kernels: warp specialization, WGMMA, TMA) forward, FP16/BF16, head dim 64/128/256, causal and not, seqlen 512..16k")],
    fa_rows(fa3, "fwd", "bf16", FA3_SRC, "FlashAttention-3"))
write("h100-cudnn-attention.csv", [fa3_meta[0], ("source", "FlashAttention-3 forward speed on H100 80GB SXM5 (BF16/FP16) figure: the cuDNN bars (cuDNN's fused attention as benchmarked there; the kernel Transformer Engine runs in NeMo/Megatron)")] + fa3_meta[1:] + [
    ("measured", "cuDNN fused flash attention forward, FP16/BF16, head dim 64/128/256, causal and not, seqlen 512..16k")],
    fa_rows(cudnn, "fwd", "bf16", FA3_SRC, "cuDNN"))

FA_COMMIT2 = "4f285b354796fb17df8636485b9a04df3ebbb7dc"
FA2_SRC = f"flash-attention assets/flash2_h100_fwd_bwd_benchmark.png@{FA_COMMIT2[:7]}"
fa2 = {
    (64, False): [215, 254, 274, 288, 294, 296],
    (128, False): [248, 294, 320, 326, 335, 338],
    (64, True): [141, 192, 232, 257, 273, 284],
    (128, True): [163, 221, 265, 294, 308, 328],
}
write("h100-flashattention2.csv", [
    ("gpu", "NVIDIA H100 80GB HBM3"),
    ("source", "FlashAttention-2 'Attention forward + backward speed (H100 80GB SXM5)' figure of the flash-attention README: the FlashAttention-2 bars (also Dao 2023 arXiv 2307.08691)"),
    ("url", f"https://github.com/Dao-AILab/flash-attention/blob/{FA_COMMIT2}/assets/flash2_h100_fwd_bwd_benchmark.png"),
    ("commit", f"{FA_COMMIT2} (2023-07-17 'FlashAttention-2 release')"),
    ("date", "2023-07-17"),
    ("measured", "FlashAttention-2 forward + backward (one timing of both), FP16/BF16, head dim 64/128, causal and not, seqlen 512..16k"),
    ("conversion", "printed bar labels in TFLOPs/s; seconds = flops / (TFLOPs/s*1e12); flops = 3.5 * 4*batch*seqlen^2*heads*head_dim (halved when causal; backward = 2.5x forward) with batch*seqlen = 16384 and heads*head_dim = 2048"),
], fa_rows(fa2, "fwd_bwd", "bf16", FA2_SRC, "FlashAttention-2"))

# ---------------------------------------------------------------------------------------------
# B200 GEMM: vLLM pull request #18778 description ('Kernel benchmarks'; 'For Llama 8B on B200'):
# benchmarks/kernels/bench_fp8_gemm.py --model meta-llama/Llama-3.1-8B-Instruct --tp-sizes 1,
# N=6144 K=4096 (Llama 3.1 8B QKV), the table whose batch_size=1 row reads torch-bf16 5.910482.
VL2_SRC = "vLLM PR #18778 description 'N=6144 K=4096 BF16 vs FP8 GEMMs TFLOP/s'"
vl_b200 = [  # M, torch-bf16, fp8-tensor-w-tensor-a-noquant
    (64, 402.608787, 533.221407), (128, 727.344333, 905.743648),
    (256, 1111.895929, 1462.903418), (512, 1337.772701, 1759.884804),
    (1024, 1432.973854, 2207.502274),
]
rows = bf16_and_fp8_rows(vl_b200, 6144, 4096, VL2_SRC, "torch-bf16",
                         "fp8-tensor-w-tensor-a-noquant")
write("b200-vllm-pr18778.csv", [
    ("gpu", "NVIDIA B200"),
    ("source", "vllm-project/vllm pull request #18778 ('[Perf] Tunings for SM100 FP8 CUTLASS kernel') description: bench_fp8_gemm.py log, 'For Llama 8B on B200'"),
    ("url", "https://github.com/vllm-project/vllm/pull/18778"),
    ("date", "2025-05-27"),
    ("measured", "N=6144 K=4096 for batch_size M = 64..1024: torch.mm BF16 (cuBLAS) and vLLM's CUTLASS SM100 FP8 GEMM with per-tensor scales, without the activation-quantization kernel ('noquant')"),
    ("conversion", "seconds = 2*M*N*K / (TFLOP/s*1e12); rows M = 1 and 16 (memory-bound) left out; the largest GEMM here is 5.2e10 FLOPs, so nothing above that is measured"),
], rows)

# ---------------------------------------------------------------------------------------------
# B200 attention: flash-attention pull request #2280 ('[Cute,Sm100,Bwd] Fix and enable 2CTA path
# for hdim 128 backward', 2026-02-27): FlashAttention-4 (CuTe DSL) on SM100; times as printed.
FA4_SRC = "flash-attention PR #2280 description"
fa4 = [  # causal, mode, ms, TFLOPS, label
    (False, "fwd", 1.433, 1534.8, "FA Python fwd"),
    (False, "bwd", 4.043, 1359.8, "[2CTA] FA Python bwd"),
    (True, "fwd", 0.775, 1418.1, "FA Python fwd"),
    (True, "bwd", 2.274, 1208.6, "[2CTA] FA Python bwd"),
]
rows = []
for causal, mode, ms, tf, label in fa4:
    fwd = attn_fwd_flops(8192, 128, 16, 4, causal)
    flops = fwd * (2.5 if mode == "bwd" else 1.0)
    rows.append(dict(benchmark="attention", dtype="bf16", m=8192, n=8192, k=128, bytes=0,
                     seconds=ms * 1e-3, flops=flops,
                     source=f"{FA4_SRC} headdim=128 causal={causal} seqlen=8192 batch=4 "
                            f"nheads=16: '{label}: {ms}ms {tf} TFLOPS'"))
write("b200-flashattention4.csv", [
    ("gpu", "NVIDIA B200"),
    ("source", "Dao-AILab/flash-attention pull request #2280 description (FlashAttention-4 CuTe DSL kernels on SM100)"),
    ("url", "https://github.com/Dao-AILab/flash-attention/pull/2280"),
    ("date", "2026-02-27"),
    ("measured", "FlashAttention-4 BF16 forward and backward (2-CTA backward the PR enables; not deterministic), head dim 128, seqlen 8192, batch 4, 16 heads, causal and not"),
    ("device_caveat", "the PR names the architecture (SM100) not the product; FlashAttention-4's paper and README benchmark B200 and its 1613 TFLOPs/s = 71% matches B200's 2.25 PFLOP/s, so B200 is assumed (against GB200's 2.5 PFLOP/s every fraction would be 10% lower)"),
    ("conversion", "seconds as printed; flops = 4*4*8192^2*16*128 (halved when causal), backward 2.5x; printed TFLOPS = flops/seconds to 0.1%"),
], rows)

# ---------------------------------------------------------------------------------------------
# B200 grouped GEMM: torchao's MXFP8 MoE-training README, 'Kernel Microbenchmarks: Breakdown by
# Pass' (pytorch/ao torchao/prototype/moe_training/README.md at 36027d8), DeepSeek-V3 671B expert
# shapes (dim 7168, expert hidden 2048, 131072 tokens over 8 experts, MXFP8 block 32): the
# torch._scaled_grouped_mm rows, times in microseconds as printed. The forward and the input
# gradient are M-grouped (8 groups of 16384 token rows, each expert its own weights); the weight
# gradient is K-grouped (each expert's 2048x7168 gradient summed over its 16384 tokens).
AO_COMMIT = "36027d82d1ad9949597ea16002ff4940374b1b94"
AO_SRC = f"torchao moe_training README.md@{AO_COMMIT[:7]} 'Kernel Microbenchmarks: Breakdown by Pass'"
ao_grouped = [  # pass, groups, m, n, k (per group), microseconds, the table's shape text
    ("forward", 8, 16384, 2048, 7168, 1671.2, "(131072 7168) @ (8 7168 2048)"),
    ("input gradient", 8, 16384, 7168, 2048, 1683.4, "(131072 2048) @ (8 2048 7168)"),
    ("weight gradient", 8, 2048, 7168, 16384, 2103.3, "(2048 131072) @ (131072 7168)"),
]
rows = []
for label, g, m, n, k, us, shape in ao_grouped:
    tflops = 2.0 * g * m * n * k / (us * 1e-6) / 1e12
    row = gemm_row("grouped_gemm", "mxfp8", g, m, n, k, tflops,
                   f"{AO_SRC} {label} torch._scaled_grouped_mm {shape}: {us} us")
    row["seconds"] = us * 1e-6  # as printed, not through the rounded rate
    rows.append(row)
write("b200-torchao-mxfp8-grouped.csv", [
    ("gpu", "NVIDIA B200"),
    ("source", "pytorch/ao torchao/prototype/moe_training/README.md, 'Kernel Microbenchmarks: Breakdown by Pass' (torch 2.11.0.dev20260101+cu128, torchao 0.16.0+gitaa38ae104, NVIDIA B200 at a 1000 W power limit)"),
    ("url", f"https://github.com/pytorch/ao/blob/{AO_COMMIT}/torchao/prototype/moe_training/README.md"),
    ("commit", AO_COMMIT),
    ("date", "2026-01-02"),
    ("measured", "torch._scaled_grouped_mm MXFP8 (E4M3, 1x32 block scales) grouped GEMMs of a DeepSeek-V3 MoE layer's local experts: forward and input gradient M-grouped (8 x 16384 rows), weight gradient K-grouped; the quantization and scale-layout kernels around them are timed apart and left out"),
    ("conversion", "seconds = the printed microseconds; flops = 2*8*m*n*k per pass (3.848e12); bytes = A + B + C once with 1-byte operands and a bf16 output; m = all groups' rows"),
], rows)
