"""fairing4j's model server: the user's predictor behind KServe's V1 and V2 REST protocols.

Written by fairing4j into the image next to the user's predictor file; standard library only.

The predictor file defines either a class with predict(self, instances) (constructed once with no
arguments; a load(self) method, when there is one, is called once after construction) or
module-level functions predict(instances) and, optionally, load(). A predict that takes a second
parameter gets None for it (Fairing's predict(X, feature_names)). Numpy arrays, torch tensors and
tuples in the result become JSON lists.

Endpoints (KServe V1, and V2 / Open Inference Protocol where the shapes allow):
  GET  /v1/models                    {"models": [name]}
  GET  /v1/models/<name>             {"name", "ready"}: 200 when loaded, 503 while loading or
                                     when loading failed (then with "error")
  POST /v1/models/<name>:predict     {"instances": [...]} -> {"predictions": [...]}
  GET  /v2/health/live, /v2/health/ready, /v2/models/<name>, /v2/models/<name>/ready
  POST /v2/models/<name>/infer       {"inputs": [{"name", "shape", "datatype", "data"}]}
An error in the predictor answers 500 with the message (its traceback goes to the log); a bad
request answers 400 saying what is wrong. Calls to predict are serialized: user code need not be
thread-safe.

Options: --predictor FILE (required), --class NAME, --model_name NAME (else $MODEL_NAME, else the
file's name without .py), --http_port PORT (else $PORT, else 8080).
"""

import argparse
import importlib.util
import inspect
import json
import logging
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = logging.getLogger("fairing4j.model_server")
MAX_BODY = 64 * 1024 * 1024


class Predictor:
    """The user's code: found and loaded once, then called under a lock."""

    def __init__(self, path, class_name):
        self.path = path
        self.class_name = class_name
        self.ready = False
        self.error = None
        self.loaded_after = None
        self._predict = None
        self._feature_names = False
        self._lock = threading.Lock()

    def load(self):
        started = time.monotonic()
        try:
            module = self._module()
            target = self._target(module)
            if inspect.isclass(target):
                instance = target()
                if callable(getattr(instance, "load", None)):
                    instance.load()
                self._predict = instance.predict
            else:
                loader = getattr(module, "load", None)
                if callable(loader):
                    loader()
                self._predict = target
            self._feature_names = _takes_two(self._predict)
            self.loaded_after = time.monotonic() - started
            self.ready = True
            LOG.info("model loaded from %s in %.1f s", self.path, self.loaded_after)
        except BaseException as e:  # the endpoint says why it is not ready; the server stays up
            self.error = "%s: %s" % (type(e).__name__, e)
            LOG.exception("the predictor in %s failed to load", self.path)

    def _module(self):
        name = os.path.splitext(os.path.basename(self.path))[0]
        directory = os.path.dirname(os.path.abspath(self.path))
        if directory not in sys.path:
            sys.path.insert(0, directory)  # its sibling modules import as in a script
        spec = importlib.util.spec_from_file_location(name, self.path)
        if spec is None:
            raise ImportError("cannot import %s" % self.path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    def _target(self, module):
        if self.class_name:
            found = getattr(module, self.class_name, None)
            if not inspect.isclass(found) or not callable(getattr(found, "predict", None)):
                raise LookupError("%s defines no class %s with a predict method (it defines %s)"
                                  % (self.path, self.class_name, _classes(module) or "none"))
            return found
        classes = [c for c in vars(module).values() if inspect.isclass(c)
                   and c.__module__ == module.__name__
                   and callable(getattr(c, "predict", None))]
        if len(classes) == 1:
            return classes[0]
        if len(classes) > 1:
            raise LookupError("%s defines several classes with a predict method (%s): name one"
                              " with className(..)" % (self.path,
                                                       ", ".join(c.__name__ for c in classes)))
        function = getattr(module, "predict", None)
        if callable(function):
            return function
        raise LookupError("%s defines neither a class with a predict(self, instances) method nor"
                          " a predict(instances) function" % self.path)

    def predict(self, instances):
        with self._lock:
            if self._feature_names:
                return self._predict(instances, None)
            return self._predict(instances)


def _takes_two(function):
    try:
        parameters = [p for p in inspect.signature(function).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return False
    return len(parameters) >= 2


def _classes(module):
    return ", ".join(sorted(n for n, c in vars(module).items()
                            if inspect.isclass(c) and c.__module__ == module.__name__))


def plain(value):
    """The result as JSON values: arrays, tensors and their scalars become lists and numbers."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    for convert in ("tolist", "item"):  # numpy arrays and scalars, torch tensors
        method = getattr(value, convert, None)
        if callable(method):
            try:
                return plain(method())
            except (TypeError, ValueError, RuntimeError):
                pass
    raise TypeError("the predictor returned a %s, which JSON cannot carry: return lists, numbers,"
                    " strings or dicts of them" % type(value).__name__)


def nested(data, shape):
    """V2's flat data as nested lists of the given shape."""
    if not shape:
        return data[0] if isinstance(data, list) and len(data) == 1 else data
    total = 1
    for size in shape:
        total *= size
    if total != len(data):
        raise ValueError("shape %s holds %d values, data has %d" % (shape, total, len(data)))

    def build(flat, dims):
        if len(dims) == 1:
            return list(flat)
        step = len(flat) // dims[0]
        return [build(flat[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])]

    return build(data, list(shape))


def flat(value):
    """Nested lists as (flat data, shape)."""
    if not isinstance(value, list):
        return [value], []
    if not value:
        return [], [0]
    parts = [flat(v) for v in value]
    shape = parts[0][1]
    if any(p[1] != shape for p in parts):
        raise ValueError("the predictions are ragged; V2 needs a rectangular result (use V1)")
    return [x for p in parts for x in p[0]], [len(value)] + shape


def datatype(data, asked):
    """The V2 datatype of the output: floats keep the input's float type (FP32 in, FP32 out)."""
    sample = data[0] if data else 0.0
    if isinstance(sample, bool):
        return "BOOL"
    if isinstance(sample, int):
        return "INT64"
    if isinstance(sample, float):
        return asked if isinstance(asked, str) and asked.startswith("FP") else "FP64"
    return "BYTES"


class BadRequest(Exception):
    pass


def handler_for(name, predictor):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "fairing4j-model-server"

        def log_message(self, fmt, *args):
            pass  # one line per request from answer(), probes at debug

        def do_GET(self):
            self.started = time.monotonic()
            path = self.path.split("?", 1)[0].rstrip("/")
            if path in ("", "/v1/models/" + name, "/v2/models/" + name + "/ready"):
                self.readiness()
            elif path == "/v1/models":
                self.answer(200, {"models": [name]})
            elif path == "/v2/health/live":
                self.answer(200, {"live": True}, quiet=True)
            elif path == "/v2/health/ready":
                self.answer(200 if predictor.ready else 503, {"ready": predictor.ready},
                            quiet=True)
            elif path == "/v2/models/" + name:
                self.answer(200, {"name": name, "versions": [], "platform": "fairing4j-python",
                                  "inputs": [], "outputs": []})
            elif path.startswith("/v1/models/") or path.startswith("/v2/models/"):
                self.unknown_model(path)
            else:
                self.not_found(path)

        def do_POST(self):
            self.started = time.monotonic()
            path = self.path.split("?", 1)[0]
            try:
                if path == "/v1/models/%s:predict" % name:
                    body = self.body()
                    instances = body.get("instances") if isinstance(body, dict) else None
                    if not isinstance(instances, list):
                        raise BadRequest('the body needs "instances": a list, e.g.'
                                         ' {"instances": [[1, 2, 3]]}')
                    if self.not_ready():
                        return
                    result = plain(predictor.predict(instances))
                    if not (isinstance(result, dict) and "predictions" in result):
                        result = {"predictions": result}
                    self.answer(200, result)
                elif path == "/v2/models/%s/infer" % name:
                    self.infer(self.body())
                elif path.startswith("/v1/models/") or path.startswith("/v2/models/"):
                    self.unknown_model(path)
                else:
                    self.not_found(path)
            except BadRequest as e:
                self.answer(400, {"error": str(e)})
            except Exception as e:
                LOG.exception("predict failed")
                self.answer(500, {"error": "%s: %s" % (type(e).__name__, e)})

        def infer(self, body):
            inputs = body.get("inputs") if isinstance(body, dict) else None
            if not isinstance(inputs, list) or not inputs:
                raise BadRequest('the body needs "inputs": a list of {"name", "shape",'
                                 ' "datatype", "data"}')
            tensors = {}
            for each in inputs:
                if not isinstance(each, dict) or not isinstance(each.get("data"), list):
                    raise BadRequest('each input needs "data": a list (and "shape")')
                try:
                    tensors[each.get("name", "input-%d" % len(tensors))] = nested(
                        each["data"], each.get("shape") or [])
                except (ValueError, TypeError) as e:
                    raise BadRequest(str(e))
            if self.not_ready():
                return
            instances = next(iter(tensors.values())) if len(tensors) == 1 else tensors
            result = plain(predictor.predict(instances))
            if isinstance(result, dict) and "predictions" in result:
                result = result["predictions"]
            data, shape = flat(result)
            answer = {"model_name": name, "outputs": [{"name": "output-0", "shape": shape,
                                                       "datatype": datatype(
                                                           data, inputs[0].get("datatype")),
                                                       "data": data}]}
            if isinstance(body.get("id"), str):
                answer["id"] = body["id"]
            self.answer(200, answer)

        def body(self):
            if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                raw = self.chunks()  # what proxies (the API server's among them) may send
            else:
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    raise BadRequest("the body is %d bytes; this server takes up to %d"
                                     % (length, MAX_BODY))
                raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw.decode("utf-8") or "null")
            except (UnicodeDecodeError, ValueError) as e:
                raise BadRequest("the body is not JSON: %s" % e)

        def chunks(self):
            raw = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(raw)
                raw += self.rfile.read(size)
                self.rfile.readline()
                if len(raw) > MAX_BODY:
                    raise BadRequest("the body is over %d bytes" % MAX_BODY)

        def not_ready(self):
            if predictor.ready:
                return False
            self.answer(503, {"error": "model %s is not ready: %s" % (
                name, predictor.error or "still loading")})
            return True

        def readiness(self):
            answer = {"name": name, "ready": predictor.ready}
            if predictor.error:
                answer["error"] = predictor.error
            self.answer(200 if predictor.ready else 503, answer, quiet=True)

        def unknown_model(self, path):
            self.answer(404, {"error": "%s: this server serves the model %s only" % (path, name)})

        def not_found(self, path):
            self.answer(404, {"error": "%s is not a path of this server; try /v1/models/%s"
                                       % (path, name)})

        def answer(self, status, body, quiet=False):
            payload = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            level = logging.DEBUG if quiet else logging.INFO  # probes would flood the log
            LOG.log(level, "%s %s %d %.1f ms", self.command, self.path, status,
                    (time.monotonic() - self.started) * 1000)

    return Handler


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--predictor", required=True)
    parser.add_argument("--class", dest="class_name")
    parser.add_argument("--model_name")
    parser.add_argument("--http_port", type=int)
    options = parser.parse_args(argv)
    # The server's lines go through a handler of its own: the root logger stays the user's, so a
    # logging.basicConfig(..) in the predictor file works as it does in their scripts.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    LOG.addHandler(handler)
    LOG.setLevel(os.environ.get("FAIRING4J_LOG_LEVEL", "INFO"))
    LOG.propagate = False
    name = options.model_name or os.environ.get("MODEL_NAME") or os.path.splitext(
        os.path.basename(options.predictor))[0]
    port = options.http_port or int(os.environ.get("PORT") or 8080)
    predictor = Predictor(options.predictor, options.class_name)
    server = ThreadingHTTPServer(("0.0.0.0", port), handler_for(name, predictor))
    server.daemon_threads = True

    def stop(signum, frame):
        LOG.info("signal %d: stopping", signum)
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # Loads while the server answers, so readiness says "loading" rather than refusing.
    threading.Thread(target=predictor.load, name="load", daemon=True).start()
    LOG.info("serving model %s on port %d (V1: /v1/models/%s:predict)", name,
             server.server_address[1], name)
    server.serve_forever()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
