#!/usr/bin/python3
"""Megatron-LM functional tests as measurements: one CSV row per (test case, golden-values file),
and pipesim validation files for the cases pipesim can express.

    tools/megatron-functional-tests.py MIRROR_GIT_DIR OUT_DIR [--validation-dir DIR]

MIRROR_GIT_DIR is a git directory of NVIDIA/Megatron-LM (a bare snapshot is enough: every file is
read with `git show HEAD:path`). OUT_DIR receives runs.csv (calibrate/measurements/
megatron-functional/ in the repository). With --validation-dir, one pipesim validation file per
expressible (case, platform) and one model file per distinct shape (under DIR/models/) are
written there, plus DIR/skipped.csv (every case and platform not written, with the reason).
Python 3 standard library and PyYAML. See calibrate/measurements/megatron-functional/README.md.
"""

import argparse
import csv
import hashlib
import math
import os
import re
import statistics
import subprocess
import sys

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("PyYAML is needed (Debian: apt-get install python3-yaml; run with /usr/bin/python3)")

FAMILIES = ("gpt", "moe", "mixtral", "bert")
CASES_DIR = "tests/functional_tests/test_cases"
RECIPES_DIR = "tests/test_utils/recipes"
SMALL_HIDDEN = 1024  # the floor fits use the small shapes only
NOISY_SPREAD = 0.05  # steady steps whose MAD exceeds 5% of their median: no validation file
STEADY_FIRST_STEP = 6  # steps 1..5 (allocator, compile, NCCL warm-up) are not steady
SPIKE_FACTOR = 1.5  # a step above 1.5 x the median of the steady steps is a spike (save/eval)

# Validation platforms: the golden-file platform -> pipesim hardware profile.
HARDWARE = {"dgx_a100": "a100-dgx", "dgx_h100": "h100-dgx", "dgx_gb200": "gb200-nvl72"}
# Golden files of cloud variants, looked up in the recipes as the platform they run.
PLATFORM_RECIPE_ALIAS = {
    "dgxa100_dracooci": "dgx_a100",
    "dgxa100_dracooci-ord": "dgx_a100",
    "dgxh100_dgxc": "dgx_h100",
}

# Arguments that do not change what one training step computes: two cases differing only in
# these are the same configuration (a resume test re-measuring a regular one).
NON_CONFIG_ARGS = {
    "--save", "--load", "--save-interval", "--save-retain-interval", "--async-save",
    "--use-persistent-ckpt-worker", "--ckpt-format", "--ckpt-fully-parallel-load",
    "--ckpt-fully-parallel-save", "--no-ckpt-fully-parallel-save", "--ckpt-assume-constant-structure",
    "--dist-ckpt-optim-fully-reshardable", "--dist-ckpt-strictness", "--auto-detect-ckpt-format",
    "--use-checkpoint-args", "--use-checkpoint-opt_param-scheduler", "--no-load-optim",
    "--no-load-rng", "--train-iters", "--exit-interval", "--tensorboard-dir", "--data-cache-path",
    "--async-ckpt-use-cpu-shm", "--async-strategy", "--exit-duration-in-mins",
    "--distributed-timeout-minutes", "--finetune", "--override-opt_param-scheduler",
}

CSV_FIELDS = [
    "case", "family", "test_type", "golden_file", "platform", "branch", "run_part",
    "nodes", "gpus_per_node", "world", "nodes_source",
    "layers", "hidden", "ffn", "heads", "query_groups", "kv_channels", "tokenizer",
    "vocab_padded", "seq", "mbs", "gbs", "tp", "pp", "vpp", "cp", "ep", "etp", "dp",
    "micro_batches_per_dp_rank", "experts", "topk", "moe_ffn", "shared_expert_ffn",
    "moe_layer_freq", "dispatcher", "grouped_gemm", "mla", "mtp_layers", "pipeline_layout",
    "cuda_graph_impl", "enable_cuda_graph", "cuda_graph_scope", "recompute_granularity",
    "recompute_method", "recompute_num_layers", "recompute_modules", "precision", "fp8_recipe",
    "sequence_parallel", "distributed_optimizer", "overlap_grad_reduce", "overlap_param_gather",
    "tp_comm_overlap", "moe_ep_comm_overlap", "attention_backend", "deterministic",
    "transformer_impl", "swiglu", "normalization", "position_embedding", "untied_embeddings",
    "log_params_norm", "log_num_zeros_in_grad", "nccl_algo", "cuda_device_max_connections",
    "train_iters", "log_interval", "save_interval", "iter_time_median_s", "iter_time_min_s",
    "iter_time_steps_logged", "iter_time_steps_used", "iter_time_spikes_dropped",
    "iter_time_mad_rel", "mem_max_allocated_gib", "duplicate_of", "training",
]


def git(mirror, *args):
    return subprocess.run(["git", "-C", mirror, *args], check=True, capture_output=True,
                          text=True).stdout


def show(mirror, path):
    return git(mirror, "show", "HEAD:" + path)


def flag(args, key):
    return args.get(key) is True or str(args.get(key)).lower() == "true"


def num(args, key, default=None):
    v = args.get(key)
    if v is None or v is True:
        return default
    try:
        f = float(v)
    except ValueError:
        return default
    return int(f) if f == int(f) else f


def listed(value):
    """Megatron's list arguments as YAML holds them: '[a b]', 'a b' or a list."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return [v for v in re.split(r"[\s,]+", str(value).strip("[]")) if v]


# ---------------------------------------------------------------- recipes: nodes and GPUs
def load_recipes(mirror):
    """(family, case, environment, platform) -> list of (recipe, nodes, gpus), and each
    recipe's spec defaults: path -> (family, nodes, gpus)."""
    where, specs = {}, {}
    for path in sorted(git(mirror, "ls-tree", "-r", "--name-only", "HEAD", RECIPES_DIR).split()):
        if not path.endswith(".yaml") or os.path.basename(path).startswith("_"):
            continue
        doc = yaml.safe_load(show(mirror, path))
        spec = doc.get("spec") or {}
        model, nodes, gpus = spec.get("model"), spec.get("nodes"), spec.get("gpus")
        specs[path] = (model, nodes, gpus)
        default_platforms = listed(spec.get("platforms"))
        for product in doc.get("products") or []:
            for sub in product.get("products") or [{}]:
                envs = listed(sub.get("environment", product.get("environment")))
                plats = listed(sub.get("platforms", product.get("platforms"))) or default_platforms
                for case in listed(product.get("test_case")):
                    for env in envs:
                        for plat in plats:
                            key = (model, case, env, plat)
                            entry = (path, int(nodes), int(gpus))
                            if entry not in where.setdefault(key, []):
                                where[key].append(entry)
    return where, specs


# The recipe folder that runs each platform, and the other platform of the same folder (the h100/
# recipes run both DGX A100 and DGX H100 nodes: 8 GPUs a node either way).
RECIPE_FOLDER = {"dgx_a100": "h100", "dgx_h100": "h100", "dgx_gb200": "gb200"}
SAME_FOLDER = {"dgx_a100": "dgx_h100", "dgx_h100": "dgx_a100"}


def nodes_for(recipes, family, case, branch, platform, test_type):
    """(nodes, gpus per node, source) for one golden file: the recipe that runs the case on the
    platform; else the case's recipe on the other platform of the same recipe folder; else (a
    golden file whose case no recipe schedules any more) the family recipe's default."""
    where, specs = recipes
    plat = PLATFORM_RECIPE_ALIAS.get(platform, platform)
    tries = [(env, plat) for env in (branch, "dev", "lts")]
    if plat in SAME_FOLDER:
        tries += [(env, SAME_FOLDER[plat]) for env in (branch, "dev", "lts")]
    for env, p in tries:
        hits = where.get((family, case, env, p))
        if hits:
            sizes = sorted({(n, g) for _, n, g in hits})
            src = ";".join(x.replace(RECIPES_DIR + "/", "") for x, _, _ in hits)
            if env != branch or p != platform:
                src = f"{src} (as {env} {p})"
            if len(sizes) > 1:
                return None, None, "ambiguous: " + src
            return sizes[0][0], sizes[0][1], src
    folder = RECIPE_FOLDER.get(plat)
    default = f"{RECIPES_DIR}/{folder}/{family}.yaml" if folder else None
    if default in specs and test_type != "release":
        _, n, g = specs[default]
        return int(n), int(g), (f"{folder}/{family}.yaml spec default (assumed: no recipe "
                                "schedules this case at this commit)")
    return None, None, ""


# ---------------------------------------------------------------- golden values
GOLDEN_RE = re.compile(r"^golden_values_(dev|lts)(?:_(.+?))?(_2nd)?\.json$")


def steady(series):
    """Median, min, steps logged, steps used, spikes dropped of one `iteration-time` series."""
    if not isinstance(series, dict):
        return None
    values = series.get("values") or {}
    points = []
    for step, v in values.items():
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f) and f > 0:
            points.append((int(step), f))
    logged = len(points)
    kept = [f for s, f in points if s >= STEADY_FIRST_STEP]
    if not kept:
        return {"logged": logged}
    m0 = statistics.median(kept)
    used = [f for f in kept if f <= SPIKE_FACTOR * m0]
    med = statistics.median(used)
    # Spread: the median absolute deviation over the median (robust; 0 for one step).
    spread = statistics.median(abs(f - med) for f in used) / med
    return {"median": med, "min": min(used), "logged": logged, "used": len(used),
            "spikes": len(kept) - len(used), "spread": spread}


def max_memory(doc):
    series = doc.get("mem-max-allocated-bytes")
    if not isinstance(series, dict):
        return None
    vals = []
    for v in (series.get("values") or {}).values():
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            vals.append(f)
    return max(vals) / 2**30 if vals else None


# ---------------------------------------------------------------- configuration
TOKENIZER_VOCAB = {
    "GPT2BPETokenizer": 50257,  # GPT-2 BPE vocab.json
    "TikTokenizer": 131072,  # DEFAULT_TIKTOKEN_MAX_VOCAB = 2**17 (tiktoken_tokenizer.py)
    "GPTSentencePieceTokenizer": 256000,  # nemotron_2_256k.model
    "Llama2Tokenizer": 32000,
}


def tokenizer_of(args):
    t = args.get("--tokenizer-type")
    if t:
        return str(t)
    if args.get("--vocab-file") and args.get("--merge-file"):
        return "GPT2BPETokenizer"
    if args.get("--vocab-file"):
        return "BertWordPieceLowerCase"
    return ""


def vocab_of(args, tp):
    """The padded vocabulary Megatron builds (make-vocab-size-divisible-by x TP), or None."""
    if num(args, "--padded-vocab-size"):
        return int(num(args, "--padded-vocab-size")), "--padded-vocab-size"
    tok = tokenizer_of(args)
    base = num(args, "--vocab-size")
    if tok == "NullTokenizer" and base:
        base, why = int(base) + 1, f"NullTokenizer: --vocab-size {base} + 1 (end of document)"
    elif base:
        why = f"--vocab-size {base}"
    elif tok in TOKENIZER_VOCAB:
        base = TOKENIZER_VOCAB[tok]
        why = f"{tok} {base}"
    elif tok == "BertWordPieceLowerCase":
        base, why = 30522, "BERT lower-case WordPiece 30522"
    else:
        return None, f"vocabulary of {tok or 'an unnamed tokenizer'} unknown"
    multiple = int(num(args, "--make-vocab-size-divisible-by", 128)) * tp
    padded = -(-base // multiple) * multiple
    return padded, f"{why}, padded to a multiple of {multiple // tp} x TP {tp} = {padded}"


def config(d):
    """The fields of one model_config.yaml that the CSV and the validation files use."""
    a = d.get("MODEL_ARGS") or {}
    env = d.get("ENV_VARS") or {}
    c = {}
    c["layers"] = num(a, "--num-layers")
    c["hidden"] = num(a, "--hidden-size")
    c["heads"] = num(a, "--num-attention-heads")
    c["ffn"] = num(a, "--ffn-hidden-size", 4 * c["hidden"] if c["hidden"] else None)
    c["query_groups"] = num(a, "--num-query-groups") if flag(a, "--group-query-attention") else ""
    c["kv_channels"] = num(a, "--kv-channels", "")
    c["tokenizer"] = tokenizer_of(a)
    c["seq"] = num(a, "--seq-length")
    c["mbs"] = num(a, "--micro-batch-size", 1)
    c["gbs"] = num(a, "--global-batch-size")
    c["tp"] = num(a, "--tensor-model-parallel-size", 1)
    c["pp"] = num(a, "--pipeline-model-parallel-size", 1)
    vpp = ""
    if num(a, "--num-virtual-stages-per-pipeline-rank"):
        vpp = num(a, "--num-virtual-stages-per-pipeline-rank")
    elif num(a, "--num-layers-per-virtual-pipeline-stage") and c["layers"]:
        vpp = c["layers"] // (c["pp"] * num(a, "--num-layers-per-virtual-pipeline-stage"))
    c["vpp"] = vpp
    c["cp"] = num(a, "--context-parallel-size", 1)
    c["experts"] = num(a, "--num-experts", "")
    moe = bool(c["experts"])
    c["ep"] = num(a, "--expert-model-parallel-size", 1)
    c["etp"] = num(a, "--expert-tensor-parallel-size", c["tp"] if moe else "")
    c["topk"] = num(a, "--moe-router-topk", 2 if moe else "")
    c["moe_ffn"] = num(a, "--moe-ffn-hidden-size", c["ffn"] if moe else "")
    c["shared_expert_ffn"] = num(a, "--moe-shared-expert-intermediate-size", "")
    c["moe_layer_freq"] = a.get("--moe-layer-freq", 1 if moe else "")
    c["dispatcher"] = a.get("--moe-token-dispatcher-type", "allgather" if moe else "")
    if c["dispatcher"] == "flex":
        c["dispatcher"] = "flex:" + str(a.get("--moe-flex-dispatcher-backend", "deepep"))
    c["grouped_gemm"] = flag(a, "--moe-grouped-gemm") if moe else ""
    c["mla"] = flag(a, "--multi-latent-attention")
    c["mtp_layers"] = num(a, "--mtp-num-layers", 0)
    c["pipeline_layout"] = a.get("--pipeline-model-parallel-layout", "")
    c["cuda_graph_impl"] = a.get("--cuda-graph-impl", "")
    c["enable_cuda_graph"] = flag(a, "--enable-cuda-graph") or flag(a, "--external-cuda-graph")
    c["cuda_graph_scope"] = " ".join(listed(a.get("--cuda-graph-modules", a.get("--cuda-graph-scope"))))
    c["recompute_granularity"] = a.get("--recompute-granularity", "")
    c["recompute_method"] = a.get("--recompute-method", "")
    c["recompute_num_layers"] = num(a, "--recompute-num-layers", "")
    c["recompute_modules"] = " ".join(listed(a.get("--recompute-modules")))
    if flag(a, "--fp8-format") or a.get("--fp8-format"):
        c["precision"] = "fp8"
    elif flag(a, "--fp16"):
        c["precision"] = "fp16"
    elif flag(a, "--bf16"):
        c["precision"] = "bf16"
    else:
        c["precision"] = "fp32"
    c["fp8_recipe"] = a.get("--fp8-recipe", "delayed" if c["precision"] == "fp8" else "")
    c["sequence_parallel"] = flag(a, "--sequence-parallel")
    c["distributed_optimizer"] = flag(a, "--use-distributed-optimizer")
    c["overlap_grad_reduce"] = flag(a, "--overlap-grad-reduce")
    c["overlap_param_gather"] = flag(a, "--overlap-param-gather")
    c["tp_comm_overlap"] = flag(a, "--tp-comm-overlap")
    c["moe_ep_comm_overlap"] = flag(a, "--overlap-moe-expert-parallel-comm")
    backend = a.get("--attention-backend", "")
    if not backend:
        backend = "flash(--use-flash-attn)" if flag(a, "--use-flash-attn") else "auto"
    c["attention_backend"] = backend
    c["deterministic"] = flag(a, "--deterministic-mode")
    c["transformer_impl"] = a.get("--transformer-impl", "transformer_engine")
    c["swiglu"] = flag(a, "--swiglu")
    c["normalization"] = a.get("--normalization", "LayerNorm")
    c["position_embedding"] = a.get("--position-embedding-type",
                                    "rope" if flag(a, "--use-rotary-position-embeddings")
                                    else "learned_absolute")
    c["untied_embeddings"] = flag(a, "--untie-embeddings-and-output-weights")
    c["log_params_norm"] = flag(a, "--log-params-norm")
    c["log_num_zeros_in_grad"] = flag(a, "--log-num-zeros-in-grad")
    c["nccl_algo"] = env.get("NCCL_ALGO", "")
    c["cuda_device_max_connections"] = env.get("CUDA_DEVICE_MAX_CONNECTIONS", "")
    c["train_iters"] = num(a, "--train-iters", "")
    c["log_interval"] = num(a, "--log-interval", "")
    c["save_interval"] = num(a, "--save-interval", "")
    return c


def is_training(d):
    a = d.get("MODEL_ARGS") or {}
    mode = d.get("MODE") or "pretraining"
    return mode == "pretraining" and not flag(a, "--perform-rl-step")


def config_key(d):
    a = d.get("MODEL_ARGS") or {}
    args = sorted((k, str(v)) for k, v in a.items() if k not in NON_CONFIG_ARGS)
    env = sorted((k, str(v)) for k, v in (d.get("ENV_VARS") or {}).items())
    extra = sorted((k, str(v)) for k, v in d.items()
                   if k.startswith("MODEL_ARGS_") or k in ("MODE", "MODEL_ENV_VARS"))
    return repr((args, env, extra))


# ---------------------------------------------------------------- pipesim expression
class NotExpressible(Exception):
    pass


def moe_block(c, a, assumptions):
    freq = c["moe_layer_freq"]
    block = {"experts": int(c["experts"]), "top_k": int(c["topk"]), "ffn_hidden": int(c["moe_ffn"])}
    if str(freq) not in ("1", ""):
        m = re.fullmatch(r"\(?\[0\]\*(\d+)\+\[1\]\*(\d+)\)?", str(freq).replace(" ", ""))
        if not m or int(m.group(1)) + int(m.group(2)) != c["layers"]:
            raise NotExpressible(f"moe-layer-freq pattern {freq}")
        block["first_dense_layers"] = int(m.group(1))
        assumptions.append(f"moe-layer-freq {freq}: the first {m.group(1)} layers dense "
                           f"(FFN {c['ffn']}), the other {m.group(2)} MoE")
    if c["shared_expert_ffn"]:
        block["shared_experts"] = 1
        block["shared_ffn_hidden"] = int(c["shared_expert_ffn"])
        if flag(a, "--moe-shared-expert-gate"):
            block["shared_expert_gate"] = True
    if num(a, "--moe-router-num-groups"):
        block["router_groups"] = int(num(a, "--moe-router-num-groups"))
        block["router_group_topk"] = int(num(a, "--moe-router-group-topk"))
    if flag(a, "--moe-router-enable-expert-bias"):
        block["expert_bias"] = True
    return block


def model_of(c, a, assumptions):
    """The pipesim model mapping of one case (vocabulary and sequence go in the run options)."""
    m = {"layers": int(c["layers"]), "hidden": int(c["hidden"]), "heads": int(c["heads"])}
    if c["query_groups"] and not c["mla"]:
        m["kv_heads"] = int(c["query_groups"])
    if c["kv_channels"] and not c["mla"] and int(c["kv_channels"]) * c["heads"] != c["hidden"]:
        m["head_dim"] = int(c["kv_channels"])
    m["ffn_hidden"] = int(c["ffn"])
    m["gated_mlp"] = bool(c["swiglu"])
    m["bias"] = not flag(a, "--disable-bias-linear")
    m["norm"] = "rmsnorm" if c["normalization"] == "RMSNorm" else "layernorm"
    if c["position_embedding"] == "learned_absolute":
        m["position_embeddings"] = int(num(a, "--max-position-embeddings", c["seq"]))
    elif c["position_embedding"] in ("rope", "yarn", "none"):
        m["position_embeddings"] = 0
    else:
        raise NotExpressible(f"position embedding {c['position_embedding']}")
    m["tied_embeddings"] = not c["untied_embeddings"]
    m["dropout"] = not (num(a, "--hidden-dropout", 0.1) == 0 and num(a, "--attention-dropout", 0.1) == 0)
    if flag(a, "--qk-layernorm") and not c["mla"]:
        m["qk_norm"] = True
    if c["experts"]:
        m["moe"] = moe_block(c, a, assumptions)
    if c["mla"]:
        if m["bias"]:
            raise NotExpressible("latent attention with biases")
        m["mla"] = {"q_lora_rank": int(num(a, "--q-lora-rank", 0)),
                    "kv_lora_rank": int(num(a, "--kv-lora-rank", 512)),
                    "qk_nope_head_dim": int(num(a, "--qk-head-dim", 128)),
                    "qk_rope_head_dim": int(num(a, "--qk-pos-emb-head-dim", 64)),
                    "v_head_dim": int(num(a, "--v-head-dim", 128))}
    if c["mtp_layers"]:
        m["mtp_layers"] = int(c["mtp_layers"])
    return m


def model_yaml(name, family, m, cases):
    lines = [f"# A Megatron-LM functional-test shape ({family}): written by",
             "# tools/megatron-functional-tests.py from tests/functional_tests/test_cases/*/",
             "# model_config.yaml of NVIDIA/Megatron-LM @ d98e8a64dd. Vocabulary and sequence are",
             "# placeholders: every validation file sets both (the padded vocabulary depends on TP).",
             f"name: {name}",
             f"description: \"Megatron-LM functional-test {family} shape: {m['layers']} layers, "
             f"h {m['hidden']}, {m['heads']} heads\"",
             "references:",
             "  - \"NVIDIA/Megatron-LM tests/functional_tests/test_cases @ d98e8a64dd, cases: "
             + ", ".join(cases[:6]) + (f" and {len(cases) - 6} more" if len(cases) > 6 else "") + "\""]
    for k, v in m.items():
        if isinstance(v, dict):
            lines.append(f"{k}:")
            lines += [f"  {kk}: {yv(vv)}" for kk, vv in v.items()]
        else:
            lines.append(f"{k}: {yv(v)}")
    lines += ["sequence: 1024", "vocabulary: 50304", "precision: bf16", ""]
    return "\n".join(lines)


def yv(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def express(case, c, a, d, nodes, gpus, platform):
    """(run options, assumptions, approximations) of one case on one platform, or raises."""
    assumptions, approx = [], []
    family = case["family"]
    if family == "bert":
        raise NotExpressible("BERT (encoder with binary head and its masks): not mapped in this pass")
    if not nodes:
        raise NotExpressible("release test: no recipe assigns its nodes at this commit"
                             if case["test_type"] == "release" else
                             "no recipe assigns nodes and GPUs to this case on this platform")
    if c["transformer_impl"] not in ("transformer_engine", "local"):
        raise NotExpressible(f"transformer-impl {c['transformer_impl']}")
    for key, why in (("--use-megatron-fsdp", "Megatron FSDP"), ("--use-torch-fsdp2", "torch FSDP2"),
                     ("--experimental-attention-variant", "experimental attention variant"),
                     ("--fine-grained-activation-offloading", "fine-grained activation offloading"),
                     ("--step-batch-size-schedule", "batch-size ramp"),
                     ("--export-kd-teacher-load", "distillation"),
                     ("--window-size", "sliding-window attention"),
                     ("--hierarchical-context-parallel-sizes", "hierarchical context parallelism"),
                     ("--cpu-offloading", "CPU offloading")):
        if a.get(key) not in (None, False):
            raise NotExpressible(why)
    if str(a.get("--optimizer", "adam")) != "adam":
        raise NotExpressible(f"optimizer {a.get('--optimizer')} (pipesim prices Adam)")
    if case["run_args_variants"]:
        raise NotExpressible("several MODEL_ARGS_n runs in one test")
    if not c["gbs"] or not c["layers"] or not c["seq"]:
        raise NotExpressible("global batch, layers or sequence not given")
    world = nodes * gpus
    tp, pp, cp = c["tp"], c["pp"], c["cp"]
    if world % (tp * pp * cp):
        raise NotExpressible(f"world {world} not divisible by TP*PP*CP = {tp * pp * cp}")
    dp = world // (tp * pp * cp)
    if c["gbs"] % (c["mbs"] * dp):
        raise NotExpressible(f"GBS {c['gbs']} not divisible by MBS*DP = {c['mbs'] * dp}")
    n = c["gbs"] // (c["mbs"] * dp)
    assumptions.append(f"world {world} = {nodes} node(s) x {gpus} GPUs ({case['nodes_source']}); "
                       f"W = world/(T*P*C) = {world}/({tp}*{pp}*{cp}) = {dp}; "
                       f"N = GBS/(B*W) = {c['gbs']}/({c['mbs']}*{dp}) = {n}")
    vocab, vwhy = vocab_of(a, tp)
    if vocab is None:
        raise NotExpressible(vwhy)
    assumptions.append(f"vocabulary {vwhy}")
    run = {"schedule": "1f1b"}
    if c["vpp"] and int(c["vpp"]) > 1:
        run["schedule"] = "interleaved"
        run["chunks"] = int(c["vpp"])
        if num(a, "--microbatch-group-size-per-virtual-pipeline-stage"):
            approx.append("microbatch-group-size-per-virtual-pipeline-stage "
                          f"{num(a, '--microbatch-group-size-per-virtual-pipeline-stage')} "
                          "(pipesim's interleaved groups are D micro-batches)")
        if n % pp:
            raise NotExpressible(f"interleaved schedule with N = {n} not a multiple of PP {pp}")
    model = model_of(c, a, assumptions)
    run["model"] = None  # filled by the caller (the shape file's path)
    run["hardware"] = HARDWARE[platform]
    if platform == "dgx_gb200":
        assumptions.append(f"hardware gb200-nvl72: the recipe's {nodes} node(s) x {gpus} GPUs are "
                           "GB200 compute trays, taken as one NVLink domain (pipesim's default slice)")
    run["stages"] = pp
    run["micro_batches"] = n
    run["micro_batch_size"] = c["mbs"]
    run["data_parallel"] = dp
    run["tensor_parallel"] = tp
    if cp > 1:
        run["context_parallel"] = cp
        if a.get("--cp-comm-type", "p2p") != "p2p":
            approx.append(f"cp-comm-type {a.get('--cp-comm-type')} priced as p2p ring attention")
    run["vocabulary"] = vocab
    run["sequence"] = c["seq"]
    if c["experts"]:
        disp = c["dispatcher"]
        if disp == "allgather":
            raise NotExpressible("MoE allgather dispatcher (Megatron's default when none is set)")
        if disp == "alltoall":
            run["moe_dispatcher"] = "alltoall"
        elif disp == "flex:hybridep":
            run["moe_dispatcher"] = "hybridep"
        elif disp == "flex:deepep":
            run["moe_dispatcher"] = "deepep"
        else:
            raise NotExpressible(f"MoE dispatcher {disp}")
        run["expert_parallel"] = c["ep"]
        run["expert_tensor_parallel"] = c["etp"]
        if (tp * dp * cp) % (c["ep"] * c["etp"]):
            raise NotExpressible(f"EP {c['ep']} x ETP {c['etp']} does not divide T*C*W = {tp * cp * dp}")
        run["moe_grouped_gemm"] = "on" if c["grouped_gemm"] else "off"
        run["moe_overlap"] = "on" if c["moe_ep_comm_overlap"] else "off"
        run["moe_imbalance"] = 1
        assumptions.append("moe_imbalance 1: balanced routing assumed (the router "
                           f"{a.get('--moe-router-load-balancing-type', 'aux_loss')} balances with an "
                           "auxiliary loss but the measured imbalance of these tiny runs is unknown)")
        if "--moe-token-dispatcher-type" not in a:
            pass
        if flag(a, "--moe-permute-fusion") or flag(a, "--moe-router-fusion"):
            approx.append("fused MoE permute/router kernels not modelled")
    if c["recompute_granularity"] == "full":
        run["recompute"] = "full"
        if c["recompute_method"] not in ("", "uniform") or c["recompute_num_layers"] not in ("", 1):
            approx.append(f"full recompute, method {c['recompute_method']} "
                          f"{c['recompute_num_layers']} layers, priced as every layer recomputed")
    elif c["recompute_granularity"] == "selective":
        run["recompute"] = "selective"
        mods = listed(a.get("--recompute-modules")) or ["core_attn"]
        run["recompute_modules"] = ",".join(mods)
    elif c["recompute_granularity"]:
        raise NotExpressible(f"recompute granularity {c['recompute_granularity']}")
    if c["sequence_parallel"] and tp > 1:
        run["sequence_parallel"] = "on"
    if c["tp_comm_overlap"]:
        if not (c["sequence_parallel"] and tp > 1):
            raise NotExpressible("tp-comm-overlap without sequence parallelism")
        run["tp_comm_overlap"] = "on"
    run["distributed_optimizer"] = "on" if c["distributed_optimizer"] else "off"
    run["overlap_grad_reduce"] = "on" if c["overlap_grad_reduce"] else "off"
    if c["overlap_param_gather"]:
        if not (c["distributed_optimizer"] and c["overlap_grad_reduce"]):
            raise NotExpressible("overlap-param-gather without distributed optimizer and grad overlap")
        run["overlap_param_gather"] = "on"
    if num(a, "--num-distributed-optimizer-instances", 1) != 1:
        approx.append(f"{num(a, '--num-distributed-optimizer-instances')} distributed-optimizer "
                      "instances priced as one")
    if c["precision"] == "fp8":
        run["precision"] = "fp8"
        if c["fp8_recipe"] not in ("delayed", "tensorwise"):
            approx.append(f"FP8 recipe {c['fp8_recipe']} priced as per-tensor FP8")
        if flag(a, "--fp8-param-gather"):
            run["fp8_param_gather"] = "on"
        if flag(a, "--first-last-layers-bf16"):
            approx.append("first and last layers kept in BF16 priced as FP8")
    else:
        run["precision"] = c["precision"]
    backend = c["attention_backend"]
    if backend == "auto" and c["transformer_impl"] == "local":
        backend = "local"  # Megatron's own DotProductAttention: unfused
    if backend in ("flash", "fused", "auto", "flash(--use-flash-attn)"):
        run["attention"] = "flash"
        if backend == "auto":
            assumptions.append("attention: flash (no --attention-backend: Megatron's auto picks "
                               "Transformer Engine's fused/flash attention)")
    elif backend in ("unfused", "local"):
        run["attention"] = "standard"
        assumptions.append(f"attention: standard ({'--attention-backend ' + backend if c['attention_backend'] != 'auto' else 'transformer-impl local, no --attention-backend'}: "
                           "unfused softmax attention, S x S scores in memory)")
        if cp > 1:
            raise NotExpressible("context parallelism with unfused attention (pipesim's ring "
                                 "attention needs flash)")
    else:
        raise NotExpressible(f"attention backend {backend}")
    # The pipeline split.
    if c["pipeline_layout"]:
        layout = str(c["pipeline_layout"])
        if "m" in layout:
            run["partition"] = "account-ends"
            approx.append(f"pipeline layout {layout} (with an MTP layer, which pipesim's layouts "
                          "cannot place) approximated by an account-ends split")
        else:
            run["layout"] = layout
    elif num(a, "--decoder-first-pipeline-num-layers") or num(a, "--decoder-last-pipeline-num-layers"):
        first = num(a, "--decoder-first-pipeline-num-layers")
        last = num(a, "--decoder-last-pipeline-num-layers")
        v = int(c["vpp"]) if c["vpp"] else 1
        stages = pp * v
        inner = stages - (1 if first else 0) - (1 if last else 0)
        rest = c["layers"] - (first or 0) - (last or 0)
        if inner <= 0 or rest % inner:
            raise NotExpressible("uneven first/last pipeline stages")
        per = rest // inner
        parts = []
        for i in range(stages):
            k = first if (i == 0 and first) else last if (i == stages - 1 and last) else per
            parts.append(("E" if i == 0 else "") + "t" * k + ("L" if i == stages - 1 else ""))
        run["layout"] = "|".join(parts)
        assumptions.append(f"layout {run['layout']}: decoder-first/last-pipeline-num-layers "
                           f"{first}/{last}, the rest even")
    elif flag(a, "--account-for-embedding-in-pipeline-split") and flag(a, "--account-for-loss-in-pipeline-split"):
        run["partition"] = "account-ends"
    elif flag(a, "--account-for-embedding-in-pipeline-split"):
        run["partition"] = "account-embedding"
    elif flag(a, "--account-for-loss-in-pipeline-split"):
        run["partition"] = "account-loss"
    elif pp > 1 and c["layers"] % (pp * (int(c["vpp"]) if c["vpp"] else 1)):
        raise NotExpressible(f"{c['layers']} layers do not split evenly over {pp} stages")
    run["placement"] = "pipeline-major" if flag(a, "--use-tp-pp-dp-mapping") else "data-major"
    run["unfused_cross_entropy"] = "off" if flag(a, "--cross-entropy-loss-fusion") else "on"
    run["unfused_grad_accumulation"] = "on" if flag(a, "--no-gradient-accumulation-fusion") else "off"
    assumptions.append("unfused_cross_entropy " + run["unfused_cross_entropy"]
                       + (" (--cross-entropy-loss-fusion)" if run["unfused_cross_entropy"] == "off"
                          else " (no --cross-entropy-loss-fusion: Megatron's vocab-parallel loss on fp32 logits)"))
    assumptions.append("unfused_grad_accumulation " + run["unfused_grad_accumulation"]
                       + (" (--no-gradient-accumulation-fusion: main_grad.add_ after each weight-gradient GEMM)"
                          if run["unfused_grad_accumulation"] == "on" else " (fused into the wgrad GEMM)"))
    # What pipesim does not model: approximations.
    if c["cuda_graph_impl"] or c["enable_cuda_graph"]:
        approx.append("CUDA graphs ("
                      + (f"cuda-graph-impl {c['cuda_graph_impl']}" if c["cuda_graph_impl"] else "enable-cuda-graph")
                      + (f", scope {c['cuda_graph_scope']}" if c["cuda_graph_scope"] else ", whole layers")
                      + ") not modelled: pipesim prices every launch as without graphs")
    if c["deterministic"] or str((d.get("ENV_VARS") or {}).get("NVTE_ALLOW_NONDETERMINISTIC_ALGO")) == "0":
        approx.append("deterministic mode (deterministic cuBLAS workspace, deterministic "
                      "attention/NCCL algorithms) not modelled")
    if c["nccl_algo"]:
        approx.append(f"NCCL_ALGO={c['nccl_algo']} forced (pipesim picks its own algorithm)")
    if str(c["cuda_device_max_connections"]) == "1":
        approx.append("CUDA_DEVICE_MAX_CONNECTIONS=1 (one hardware queue) not modelled")
    if c["log_params_norm"] or c["log_num_zeros_in_grad"]:
        approx.append("per-step logging of the params norm / zeros in grad (extra reductions and "
                      "host syncs) not modelled")
    if c["transformer_impl"] == "local":
        approx.append("transformer-impl local (Megatron's own PyTorch layers, not Transformer "
                      "Engine) priced with the profile's fused kernels")
    if flag(a, "--no-bias-gelu-fusion") or flag(a, "--no-masked-softmax-fusion") or flag(a, "--no-rope-fusion"):
        approx.append("disabled kernel fusions (bias-gelu / masked softmax / rope) not modelled")
    if c["mtp_layers"]:
        assumptions.append(f"MTP: {c['mtp_layers']} layer(s) with the loss on the last stage "
                           "(Megatron's place without a layout)")
    assumptions.append(f"precision {run['precision']}; recompute {run.get('recompute', 'none')}; "
                       f"sequence parallel {run.get('sequence_parallel', 'off')}; placement "
                       f"{run['placement']} (Megatron's rank order "
                       + ("tp-pp-dp: --use-tp-pp-dp-mapping)" if run["placement"] == "pipeline-major"
                          else "tp-cp-ep-dp-pp)"))
    return run, model, assumptions, approx


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mirror", help="git directory of NVIDIA/Megatron-LM")
    ap.add_argument("out", help="folder for runs.csv")
    ap.add_argument("--validation-dir", help="also write pipesim validation files here")
    ap.add_argument("--pipesim", help="with --validation-dir: run `PIPESIM validate` on the files "
                    "written and write OUT/current-errors.md")
    ap.add_argument("--errors-only", action="store_true",
                    help="only the error table, from the files already in --validation-dir "
                    "(MIRROR_GIT_DIR is not read: give -)")
    args = ap.parse_args()
    if args.errors_only:
        if not (args.pipesim and args.validation_dir):
            ap.error("--errors-only needs --pipesim and --validation-dir")
        write_errors(args.pipesim, args.validation_dir, args.out)
        return
    mirror = args.mirror
    commit = git(mirror, "rev-parse", "HEAD").strip()
    recipes = load_recipes(mirror)
    paths = git(mirror, "ls-tree", "-r", "--name-only", "HEAD", CASES_DIR).split()
    cases = {}
    for p in paths:
        parts = p.split("/")
        if len(parts) != 6 or parts[3] not in FAMILIES:
            continue
        cases.setdefault((parts[3], parts[4]), []).append(parts[5])
    rows, records = [], []
    configs = {}
    for (family, name), files in sorted(cases.items()):
        if "model_config.yaml" not in files:
            continue
        d = yaml.safe_load(show(mirror, f"{CASES_DIR}/{family}/{name}/model_config.yaml"))
        configs[(family, name)] = d
    for (family, name), d in sorted(configs.items()):
        a = d.get("MODEL_ARGS") or {}
        c = config(d)
        for g in sorted(cases[(family, name)]):
            m = GOLDEN_RE.match(g)
            if not m:
                continue
            branch, platform, second = m.group(1), m.group(2) or "", bool(m.group(3))
            doc = yaml.safe_load(show(mirror, f"{CASES_DIR}/{family}/{name}/{g}"))  # JSON is YAML
            if not isinstance(doc, dict):
                continue
            st = steady(doc.get("iteration-time")) or {}
            avg = doc.get("iteration_timing_avg")
            if "median" not in st and isinstance(avg, (int, float)) and avg > 0:
                # An older golden format: one average over the run, no per-step values.
                st = {"median": float(avg), "min": float(avg), "logged": "avg", "used": "avg",
                      "spikes": ""}
            nodes, gpus, src = nodes_for(recipes, family, name, branch, platform, d.get("TEST_TYPE"))
            world = nodes * gpus if nodes else ""
            dp = mb = ""
            if world and c["tp"] and c["pp"] and c["cp"] and world % (c["tp"] * c["pp"] * c["cp"]) == 0:
                dp = world // (c["tp"] * c["pp"] * c["cp"])
                if c["gbs"] and c["gbs"] % (c["mbs"] * dp) == 0:
                    mb = c["gbs"] // (c["mbs"] * dp)
            vocab, _ = vocab_of(a, c["tp"] or 1)
            mem = max_memory(doc)
            row = dict(c)
            row.update({
                "case": name, "family": family, "test_type": d.get("TEST_TYPE", ""),
                "golden_file": g, "platform": platform, "branch": branch,
                "run_part": "2nd" if second else "1st", "nodes": nodes or "",
                "gpus_per_node": gpus or "", "world": world, "nodes_source": src,
                "vocab_padded": vocab or "", "dp": dp, "micro_batches_per_dp_rank": mb,
                "iter_time_median_s": f"{st['median']:.5f}" if "median" in st else "",
                "iter_time_min_s": f"{st['min']:.5f}" if "min" in st else "",
                "iter_time_steps_logged": st.get("logged", ""),
                "iter_time_steps_used": st.get("used", ""),
                "iter_time_spikes_dropped": st.get("spikes", ""),
                "iter_time_mad_rel": f"{st['spread']:.4f}" if "spread" in st else "",
                "mem_max_allocated_gib": f"{mem:.3f}" if mem is not None else "",
                "duplicate_of": "",  # filled below
                "training": "yes" if is_training(d) else "no",
            })
            rows.append({k: yv(row[k]) if isinstance(row[k], bool) else row[k] for k in CSV_FIELDS})
            records.append({"family": family, "name": name, "d": d, "a": a, "c": c,
                            "branch": branch, "platform": platform, "second": second,
                            "nodes": nodes, "gpus": gpus, "nodes_source": src, "st": st,
                            "golden": g, "mem": mem,
                            "run_args_variants": any(k.startswith("MODEL_ARGS_") for k in d)})
    # Duplicates: the same configuration (config_key) on the same platform and GPU count; the
    # canonical case a regular test, then the first by name.
    groups = {}
    for rec in records:
        if is_training(rec["d"]):
            key = (rec["family"], config_key(rec["d"]), rec["platform"], rec["nodes"], rec["gpus"])
            groups.setdefault(key, set()).add(rec["name"])
    duplicate_of = {}
    for key, members in groups.items():
        order = sorted(members, key=lambda n: (configs[(key[0], n)].get("TEST_TYPE") != "regular", n))
        for n in order[1:]:
            duplicate_of[(key[0], n, key[2], key[3], key[4])] = order[0]
    for row, rec in zip(rows, records):
        rec["duplicate_of"] = duplicate_of.get(
            (rec["family"], rec["name"], rec["platform"], rec["nodes"], rec["gpus"]), "")
        row["duplicate_of"] = rec["duplicate_of"]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} rows ({len(configs)} cases) -> {os.path.join(args.out, 'runs.csv')}")
    if args.validation_dir:
        write_validation(args.validation_dir, records, commit)
        if args.pipesim:
            write_errors(args.pipesim, args.validation_dir, args.out)


def write_validation(out, records, commit):
    models_dir = os.path.join(out, "models")
    os.makedirs(models_dir, exist_ok=True)
    for f in os.listdir(out):
        if f.startswith("mlm-ft-") and f.endswith(".yaml"):
            os.remove(os.path.join(out, f))
    for f in os.listdir(models_dir):
        if f.startswith("mlm-ft-") and f.endswith(".yaml"):
            os.remove(os.path.join(models_dir, f))
    # One record per (case, platform): the first run's golden file, dev before lts.
    chosen = {}
    for r in records:
        if r["platform"] not in HARDWARE or r["second"]:
            continue
        key = (r["family"], r["name"], r["platform"])
        if key not in chosen or (chosen[key]["branch"] == "lts" and r["branch"] == "dev"):
            chosen[key] = r
    skipped, shapes, written, index = [], {}, [], []
    for key in sorted(chosen):
        r = chosen[key]
        family, name, platform = key
        c, a, d = r["c"], r["a"], r["d"]
        reason = None
        if not is_training(d):
            reason = "not a training run (inference / RL)"
        elif r["duplicate_of"]:
            reason = "same configuration and GPUs as another case (runs.csv duplicate_of)"
        elif "median" not in r["st"]:
            reason = "no iteration-time in the golden values"
        elif r["st"].get("spread", 0) > NOISY_SPREAD:
            reason = (f"noisy golden values (median absolute deviation over {NOISY_SPREAD:.0%} "
                      "of the median)")
        if reason is None:
            case = {"family": family, "nodes_source": r["nodes_source"],
                    "test_type": d.get("TEST_TYPE"),
                    "run_args_variants": r["run_args_variants"]}
            try:
                run, model, assumptions, approx = express(case, c, a, d, r["nodes"], r["gpus"], platform)
            except NotExpressible as e:
                reason = str(e)
        if reason is not None:
            skipped.append((name, platform, reason))
            continue
        shape = repr(sorted((k, repr(v)) for k, v in model.items()))
        digest = hashlib.sha1(shape.encode()).hexdigest()[:6]
        mname = (f"mlm-ft-{'moe' if 'moe' in model else 'gpt'}-{model['layers']}l-h{model['hidden']}-{digest}")
        shapes.setdefault(mname, (family, model, []))[2].append(name)
        run["model"] = f"validation/megatron-functional/models/{mname}.yaml"
        st = r["st"]
        fid = f"mlm-ft-{name}-{platform.replace('dgx_', '')}"
        cite_path = f"tests/functional_tests/test_cases/{family}/{name}"
        lines = [
            f"# Megatron-LM functional test {name} ({family}, {d.get('TEST_TYPE')}), {platform}, "
            f"{r['branch']} golden values: written by tools/megatron-functional-tests.py (do not edit).",
            f"id: {fid.upper()}",
            "source: megatron-lm-functional",
            f"citation: \"NVIDIA/Megatron-LM {cite_path}/model_config.yaml and {r['golden']} "
            f"(iteration-time), nodes and GPUs from {RECIPES_DIR}/{r['nodes_source']}, commit {commit}\"",
            "expressible: approximated",
            "approximation: \"" + "; ".join(approx or ["none beyond the assumptions"]).replace('"', "'") + "\"",
            f"compare_group: mlm-ft-{platform.replace('dgx_', '')}",
            "flops: none",
            "measured:",
            f"  - {{metric: iteration_time_s, value: {st['median']:.5f}}}",
            "assumptions:",
            f"  - \"iteration_time_s: median of the golden iteration-time over steps >= {STEADY_FIRST_STEP} "
            f"({st['used']} of {st['logged']} logged steps; {st['spikes']} above {SPIKE_FACTOR} x the "
            f"median dropped as save/eval spikes); min {st['min']:.5f} s\"",
        ]
        lines += ["  - \"" + s.replace('"', "'") + "\"" for s in assumptions]
        lines.append("run:")
        for k, v in run.items():
            sv = str(v)
            if sv in ("on", "off") or "|" in sv or "*" in sv:
                sv = f"\"{sv}\""
            lines.append(f"  {k}: {sv}")
        with open(os.path.join(out, fid + ".yaml"), "w") as f:
            f.write("\n".join(lines) + "\n")
        written.append(fid)
        index.append({"id": fid.upper(), "file": fid + ".yaml", "case": name, "family": family,
                      "platform": platform, "branch": r["branch"],
                      "moe": "yes" if c["experts"] else "no",
                      "cuda_graphs": "yes" if (c["cuda_graph_impl"] or c["enable_cuda_graph"]) else "no",
                      "tp": c["tp"], "pp": c["pp"], "vpp": run.get("chunks", 1), "cp": c["cp"],
                      "dp": run["data_parallel"], "micro_batches": run["micro_batches"],
                      "mbs": c["mbs"], "layers": c["layers"], "seq": c["seq"], "hidden": c["hidden"],
                      "measured_s": f"{st['median']:.5f}"})
    for mname, (family, model, names) in sorted(shapes.items()):
        with open(os.path.join(models_dir, mname + ".yaml"), "w") as f:
            f.write(model_yaml(mname, family, model, sorted(set(names))))
    with open(os.path.join(out, "index.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(index[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(index)
    with open(os.path.join(out, "skipped.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["case", "platform", "reason"])
        w.writerows(sorted(skipped))
    print(f"{len(written)} validation files, {len(shapes)} model files, {len(skipped)} skipped -> {out}")


# ---------------------------------------------------------------- the error table
def pipesim_version(pipesim):
    return subprocess.run([pipesim, "--version"], capture_output=True, text=True).stdout.split()[-1]


def least_squares(X, y):
    """Coefficients of y ~ X (rows of k regressors) by the normal equations; None if singular."""
    k = len(X[0])
    A = [[sum(r[i] * r[j] for r in X) for j in range(k)] + [sum(r[i] * v for r, v in zip(X, y))]
         for i in range(k)]
    for i in range(k):
        piv = max(range(i, k), key=lambda r: abs(A[r][i]))
        if abs(A[piv][i]) < 1e-12:
            return None
        A[i], A[piv] = A[piv], A[i]
        for r in range(k):
            if r != i:
                f = A[r][i] / A[i][i]
                A[r] = [a - f * b for a, b in zip(A[r], A[i])]
    return [A[i][k] / A[i][i] for i in range(k)]


def write_errors(pipesim, vdir, out):
    """Predict every validation file with `pipesim validate` and write OUT/current-errors.md."""
    with open(os.path.join(vdir, "index.csv")) as f:
        index = {r["id"]: r for r in csv.DictReader(f)}
    files = sorted(os.path.join(vdir, r["file"]) for r in index.values())
    res = subprocess.run([pipesim, "validate", *files, "--format", "csv"], check=True,
                         capture_output=True, text=True).stdout
    points = []
    for p in csv.DictReader(res.splitlines()):
        r = dict(index[p["id"]])
        if p["status"] != "ok" or not p["predicted"]:
            continue
        r["pred"], r["meas"], r["err"] = float(p["predicted"]), float(p["measured"]), float(p["error_percent"])
        P, v, N, L = int(r["pp"]), int(r["vpp"]), int(r["micro_batches"]), int(r["layers"])
        work = N * L / P  # layer forward+backward passes one rank runs per step
        path = (N * v + P - 1) * L / (P * v)  # the same along the pipeline's critical path
        r["per_layer_mb_ms"] = 1e3 * r["meas"] / work
        r["gap_work_ms"] = 1e3 * (r["meas"] - r["pred"]) / work
        r["gap_path_ms"] = 1e3 * (r["meas"] - r["pred"]) / path
        r["plat"] = r["platform"].replace("dgx_", "")
        r["kind"] = "MoE" if r["moe"] == "yes" else "dense"
        points.append(r)

    def stats(rows):
        e = [r["err"] for r in rows]
        return (len(e), statistics.median(e), statistics.fmean(e), statistics.median(abs(x) for x in e))

    lines = ["# Megatron-LM functional tests: pipesim's error today", "",
             "Written by `tools/megatron-functional-tests.py`; regenerate from the repository root "
             "(the validation files already written; README.md here rewrites them too):", "",
             "```sh",
             "/usr/bin/python3 tools/megatron-functional-tests.py - calibrate/measurements/megatron-functional \\",
             "    --validation-dir validation/megatron-functional --pipesim build/release/tools/pipesim --errors-only",
             "```", "",
             f"{len(points)} validation files (validation/megatron-functional/), predicted by "
             f"`{pipesim} validate` (pipesim {pipesim_version(pipesim)}). Error = 1 − predicted / measured of the "
             "iteration time, in %: + means pipesim is optimistic (too fast), pipesim's sign.", "",
             "## Signed error per platform × dense/MoE × CUDA graphs", "",
             "| platform | kind | CUDA graphs | files | median signed error | mean signed error | median abs error |",
             "|---|---|---|---|---|---|---|"]
    groups = {}
    for r in points:
        groups.setdefault((r["plat"], r["kind"], r["cuda_graphs"]), []).append(r)
    for key in sorted(groups):
        n, med, mean, mabs = stats(groups[key])
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {n} | {med:+.1f}% | {mean:+.1f}% | {mabs:.1f}% |")
    for plat in sorted({r["plat"] for r in points}):
        n, med, mean, mabs = stats([r for r in points if r["plat"] == plat])
        lines.append(f"| {plat} | all | all | {n} | {med:+.1f}% | {mean:+.1f}% | {mabs:.1f}% |")
    n, med, mean, mabs = stats(points)
    lines.append(f"| all | all | all | {n} | {med:+.1f}% | {mean:+.1f}% | {mabs:.1f}% |")
    lines += ["", "## The per-layer floor pipesim misses", "",
              "Per file: one rank runs N·L/P layer forward+backward passes a step (N micro-batches, "
              "L layers, P stages). *measured per layer·mb* = t_meas / (N·L/P); *gap per layer·mb* "
              "= (t_meas − t_pred) / (N·L/P), the time per layer and micro-batch (forward + "
              "backward) that the measurement has and pipesim does not; *gap on the critical path* "
              "divides by the pipeline's critical-path count instead, (N·v + P − 1)·L/(P·v) "
              "(v = virtual stages), the right count if the floor is per layer pass and serial "
              "along the pipeline. Medians over the files, in milliseconds.", "",
              "| platform | kind | files | measured per layer·mb | predicted per layer·mb | gap per layer·mb | gap on the critical path |",
              "|---|---|---|---|---|---|---|"]
    g2 = {}
    for r in points:
        g2.setdefault((r["plat"], r["kind"]), []).append(r)
    for key in sorted(g2):
        rows = g2[key]
        med = lambda k: statistics.median(x[k] for x in rows)
        pred = statistics.median(1e3 * x["pred"] / (int(x["micro_batches"]) * int(x["layers"]) / int(x["pp"])) for x in rows)
        lines.append(f"| {key[0]} | {key[1]} | {len(rows)} | {med('per_layer_mb_ms'):.2f} | {pred:.2f} | "
                     f"{med('gap_work_ms'):.2f} | {med('gap_path_ms'):.2f} |")
    lines += ["", "A per-step part and a per-layer-pass part of the gap: a least-squares line "
              f"t_meas − t_pred = a + b·(N·L/P) per platform and kind, over the small shapes "
              f"(hidden ≤ {SMALL_HIDDEN}: the 7B shapes' gap is mostly compute, not floor; files "
              "with at least 5 points and two distinct counts); a is a per-step cost (optimizer, logging, "
              "gradient-norm and NaN checks, data loading), b one layer's forward+backward floor:", "",
              "| platform | kind | files | a: per step (ms) | b: per layer·mb (ms) | r² |", "|---|---|---|---|---|---|"]
    for key in sorted(g2):
        rows = [x for x in g2[key] if int(x["hidden"]) <= SMALL_HIDDEN]
        xs = [int(x["micro_batches"]) * int(x["layers"]) / int(x["pp"]) for x in rows]
        ys = [1e3 * (x["meas"] - x["pred"]) for x in rows]
        if len(rows) < 5 or len(set(xs)) < 2:
            lines.append(f"| {key[0]} | {key[1]} | {len(rows)} | – | – | – |")
            continue
        slope, icpt = statistics.linear_regression(xs, ys)
        r2 = statistics.correlation(xs, ys) ** 2
        lines.append(f"| {key[0]} | {key[1]} | {len(rows)} | {icpt:.1f} | {slope:.2f} | {r2:.2f} |")
    lines += ["", "Three terms, per step, per micro-batch and per layer pass: t_meas − t_pred = "
              "a + b·N + c·(N·L/P), least squares over the same small shapes (at least 8 files; "
              "N and N·L/P are strongly correlated in this set, so a and b trade off against each "
              "other; c is the stabler figure):", "",
              "| platform | kind | files | a: per step (ms) | b: per micro-batch (ms) | c: per layer·mb (ms) |",
              "|---|---|---|---|---|---|"]
    for key in sorted(g2):
        rows = [x for x in g2[key] if int(x["hidden"]) <= SMALL_HIDDEN]
        X = [(1.0, float(x["micro_batches"]), int(x["micro_batches"]) * int(x["layers"]) / int(x["pp"]))
             for x in rows]
        y = [1e3 * (x["meas"] - x["pred"]) for x in rows]
        coef = least_squares(X, y) if len(rows) >= 8 else None
        if coef is None:
            lines.append(f"| {key[0]} | {key[1]} | {len(rows)} | – | – | – |")
        else:
            lines.append(f"| {key[0]} | {key[1]} | {len(rows)} | {coef[0]:.1f} | {coef[1]:.2f} | {coef[2]:.2f} |")
    lines += ["", "The same gap per layer·mb by tensor-parallel size (dense and MoE together):", "",
              "| platform | TP | files | gap per layer·mb (ms) | median signed error |", "|---|---|---|---|---|"]
    g3 = {}
    for r in points:
        g3.setdefault((r["plat"], int(r["tp"])), []).append(r)
    for key in sorted(g3):
        rows = g3[key]
        lines.append(f"| {key[0]} | {key[1]} | {len(rows)} | "
                     f"{statistics.median(x['gap_work_ms'] for x in rows):.2f} | "
                     f"{statistics.median(x['err'] for x in rows):+.1f}% |")
    lines += ["", "## The 15 worst files (largest |error|)", "",
              "| id | platform | kind | CUDA graphs | T·P·C·W | N × B | measured (s) | predicted (s) | error |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(points, key=lambda x: (-abs(x["err"]), x["id"]))[:15]:
        lines.append(f"| {r['id']} | {r['plat']} | {r['kind']} | {r['cuda_graphs']} | "
                     f"{r['tp']}·{r['pp']}·{r['cp']}·{r['dp']} | {r['micro_batches']} × {r['mbs']} | "
                     f"{r['meas']:.4f} | {r['pred']:.4f} | {r['err']:+.1f}% |")
    lines += ["", "## The 10 best files (smallest |error|)", "",
              "| id | platform | kind | measured (s) | predicted (s) | error |", "|---|---|---|---|---|---|"]
    for r in sorted(points, key=lambda x: (abs(x["err"]), x["id"]))[:10]:
        lines.append(f"| {r['id']} | {r['plat']} | {r['kind']} | {r['meas']:.4f} | {r['pred']:.4f} | {r['err']:+.1f}% |")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "current-errors.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"error table of {len(points)} files -> {os.path.join(out, 'current-errors.md')}")


if __name__ == "__main__":
    main()
