"""fairing4j's model server: the user's predictor behind KServe's V1 protocol and the Open Inference
Protocol (V2) REST API.

Written by fairing4j into the image next to the user's predictor file; standard library only.

The predictor file defines one of:
  * a class with predict(self, instances), constructed once with no arguments; a load(self)
    method, when there is one, is called once after construction;
  * module-level functions predict(instances) and, optionally, load();
  * a subclass of kserve.Model (KServe's custom-model contract: load, preprocess,
    predict(payload, headers), postprocess, sync or async), usually started by
    kserve.ModelServer().start([model]) under `if __name__ == "__main__"`. The file then runs as
    the program it is: with the real kserve package where the image has one (its own server), else
    with fairing4j_kserve.py standing in for kserve, which serves the models through this server.
A predict that takes a second parameter gets None for it (Fairing's predict(X, feature_names)).
Numpy arrays, torch tensors and tuples in the result become JSON lists. A predictor may declare
its tensors with get_input_types()/get_output_types() (a method of the class, or module-level
functions) returning [{"name", "datatype", "shape"}] as kserve.Model does; V2 requests are then
checked against them and model metadata lists them.

Endpoints (KServe V1; Open Inference Protocol V2, every required REST API):
  GET  /v1/models                           {"models": [name]}
  GET  /v1/models/<name>                    {"name", "ready"}: 200 loaded, 503 loading or failed
  POST /v1/models/<name>:predict            {"instances": [...]} -> {"predictions": [...]}
  POST /v1/models/<name>:explain            the predictor's explain(), else 501
  GET  /v2                                  {"name", "version", "extensions"}
  GET  /v2/health/live, /v2/health/ready    200 {"live"|"ready": true}, 503 {"error"} when not
  GET  /v2/models/<name>[/versions/<v>]     {"name", "versions"?, "platform", "inputs", "outputs"}
  GET  /v2/models/<name>[/versions/<v>]/ready
  POST /v2/models/<name>[/versions/<v>]/infer
                                            {"id"?, "inputs": [{"name", "shape", "datatype",
                                            "data" (flat or nested)}], "outputs"?: [{"name"}]}
A V2 input's datatype must be one of the protocol's (BOOL, UINT8..UINT64, INT8..INT64, FP16,
FP32, FP64, BF16, BYTES), its data must hold exactly as many values of that type as its shape
says, nested as the shape says when nested. One input reaches a plain predictor as nested lists
of its shape, several as a dict by input name; a dict returned by a plain predictor is one output
per key. A model version exists only when --model_version (or $MODEL_VERSION) names one; without
one, a versioned path reaches the model's only version.

Errors are {"error": message}: 400 for a bad request (what is wrong, and how to fix it), 404 for
an unknown path or model, 405 for a wrong method (with Allow), 413 for a body over 64 MiB, 500
with the message when the predictor raises (its traceback goes to the log), 501 for what the
model does not implement, 503 while the model is not ready or when the server is at its bound.

Concurrency: one event loop holds the connections (up to FAIRING4J_MAX_CONNECTIONS, default 1024,
listening with a backlog of FAIRING4J_BACKLOG, default 1024); the user's code runs on one model
thread, so calls to load and predict are serialized and need not be thread-safe (async kserve
predicts interleave on that thread's loop, as in KServe). Requests waiting for the model are
bounded by FAIRING4J_MAX_PENDING (default 512); beyond it a request gets 503 with Retry-After.

Address: FAIRING4J_SERVER_HOST when set (fairing4j's local clusters set 127.0.0.1, or what the
user chose to expose); else 0.0.0.0 inside a Kubernetes pod (KUBERNETES_SERVICE_HOST is set), so
the kubelet's probes and the Service reach it, and 127.0.0.1 anywhere else.

Options: --predictor FILE (required), --class NAME, --model_name NAME (else $MODEL_NAME, else the
file's name without .py), --model_version V, --http_port PORT (else $PORT, else 8080).
"""

import argparse
import asyncio
import importlib.util
import inspect
import json
import logging
import os
import re
import runpy
import signal
import sys
import threading
import time
from urllib.parse import unquote

LOG = logging.getLogger("fairing4j.model_server")
SERVER_NAME = "fairing4j-model-server"
SERVER_VERSION = "0.1"
MAX_BODY = 64 * 1024 * 1024
MAX_HEAD = 64 * 1024          # request line and headers together
MAX_HEADERS = 100
HEAD_TIMEOUT = 30.0           # a client that opened a connection sends its request within this
IDLE_TIMEOUT = 65.0           # keep-alive, as KServe's server (longer than proxies' idle timeout)
BODY_TIMEOUT = 60.0
WRITE_TIMEOUT = 60.0
STOP_GRACE = 10.0

DATATYPES = {
    "BOOL": None, "UINT8": (0, 2 ** 8 - 1), "UINT16": (0, 2 ** 16 - 1),
    "UINT32": (0, 2 ** 32 - 1), "UINT64": (0, 2 ** 64 - 1), "INT8": (-2 ** 7, 2 ** 7 - 1),
    "INT16": (-2 ** 15, 2 ** 15 - 1), "INT32": (-2 ** 31, 2 ** 31 - 1),
    "INT64": (-2 ** 63, 2 ** 63 - 1), "FP16": None, "FP32": None, "FP64": None, "BF16": None,
    "BYTES": None,
}
REASONS = {
    100: "Continue", 200: "OK", 400: "Bad Request", 404: "Not Found",
    405: "Method Not Allowed", 408: "Request Timeout", 411: "Length Required",
    413: "Payload Too Large", 431: "Request Header Fields Too Large",
    500: "Internal Server Error", 501: "Not Implemented", 503: "Service Unavailable",
    505: "HTTP Version Not Supported",
}


def _env_int(name, default, lowest):
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return max(lowest, int(value))
    except ValueError:
        LOG.warning("%s=%r is not a number; using %d", name, value, default)
        return default


class HttpError(Exception):
    """An answer other than 200, with the protocol's {"error": ...} body."""

    def __init__(self, status, message, headers=None, close=False):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.close = close


def bad(message):
    return HttpError(400, message)


# ---------------------------------------------------------------------------------------------
# The model thread: the user's code runs here, one call at a time (async code on its loop).

class ModelThread:
    """One thread with its own event loop, where every call into the user's code runs."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="model", daemon=True)
        self._thread.start()

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, function, *args):
        """A future of function(*args) run on the model thread."""
        async def run():
            return function(*args)
        return asyncio.run_coroutine_threadsafe(run(), self.loop)

    def await_(self, coroutine):
        """A future of the coroutine run on the model thread's loop."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)


# ---------------------------------------------------------------------------------------------
# Tensors: V2 inputs checked and shaped, results flattened.

def _natural_shape(data, depth=0):
    """The shape nested lists describe, or None when ragged; ValueError when too deep."""
    if not isinstance(data, list):
        return []
    if depth > 32:
        raise ValueError("the data is nested deeper than 32 levels")
    if not data:
        return [0]
    shapes = [_natural_shape(item, depth + 1) for item in data]
    first = shapes[0]
    if first is None or any(s != first for s in shapes):
        return None
    return [len(data)] + first


def _flatten(data, out):
    if isinstance(data, list):
        for item in data:
            _flatten(item, out)
    else:
        out.append(data)
    return out


def _shaped(flat, shape):
    """Flat values as nested lists of shape; a scalar for shape []."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [_shaped(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _check_values(flat, datatype, where):
    limits = DATATYPES[datatype]
    if datatype == "BOOL":
        for value in flat:
            if not isinstance(value, bool):
                raise bad("%s: datatype BOOL takes true/false, not %s" % (where, _show(value)))
    elif datatype == "BYTES":
        for value in flat:
            if not isinstance(value, str):
                raise bad("%s: datatype BYTES takes strings (base64 for binary), not %s"
                          % (where, _show(value)))
    elif limits is not None:
        low, high = limits
        for value in flat:
            if isinstance(value, bool) or not isinstance(value, int):
                raise bad("%s: datatype %s takes integers, not %s" % (where, datatype,
                                                                      _show(value)))
            if value < low or value > high:
                raise bad("%s: %d is out of range for %s (%d..%d)" % (where, value, datatype,
                                                                       low, high))
    else:
        for value in flat:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise bad("%s: datatype %s takes numbers, not %s" % (where, datatype,
                                                                     _show(value)))


def _show(value):
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Tensor:
    """One checked V2 input: its name, shape, datatype, flat values and parameters."""

    __slots__ = ("name", "shape", "datatype", "flat", "parameters")

    def __init__(self, name, shape, datatype, flat, parameters):
        self.name = name
        self.shape = shape
        self.datatype = datatype
        self.flat = flat
        self.parameters = parameters

    def nested(self):
        return _shaped(self.flat, self.shape)


def read_inputs(body):
    """The request's inputs as Tensors, every rule of the protocol checked (HttpError 400)."""
    if not isinstance(body, dict):
        raise bad('the body must be an object: {"inputs": [{"name", "shape", "datatype",'
                  ' "data"}]}')
    if "id" in body and not isinstance(body["id"], str):
        raise bad('"id" must be a string')
    if "parameters" in body and not isinstance(body["parameters"], dict):
        raise bad('"parameters" must be an object')
    inputs = body.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        raise bad('the body needs "inputs": a non-empty list of {"name", "shape", "datatype",'
                  ' "data"}')
    tensors = []
    seen = set()
    for index, each in enumerate(inputs):
        where = "inputs[%d]" % index
        if not isinstance(each, dict):
            raise bad("%s must be an object with name, shape, datatype and data" % where)
        name = each.get("name")
        if not isinstance(name, str) or not name:
            raise bad('%s needs "name": a string' % where)
        where = "input %s" % name
        if name in seen:
            raise bad("%s is given twice" % where)
        seen.add(name)
        shape = each.get("shape")
        if not isinstance(shape, list) or any(isinstance(d, bool) or not isinstance(d, int)
                                              or d < 0 for d in shape):
            raise bad('%s needs "shape": a list of non-negative integers, e.g. [2, 3]' % where)
        datatype = each.get("datatype")
        if datatype not in DATATYPES:
            raise bad('%s: "datatype" %s is not a datatype of the protocol (one of %s)'
                      % (where, _show(datatype), ", ".join(DATATYPES)))
        if "parameters" in each and not isinstance(each["parameters"], dict):
            raise bad('%s: "parameters" must be an object' % where)
        if "data" not in each:
            raise bad('%s needs "data": its values, flat or nested' % where)
        data = each["data"]
        expected = 1
        for size in shape:
            expected *= size
        if isinstance(data, list):
            try:
                natural = _natural_shape(data)
            except ValueError as e:
                raise bad("%s: %s" % (where, e))
            if natural is None:
                raise bad("%s: data is ragged; nested data must be rectangular" % where)
            if len(natural) > 1 and natural != shape:
                raise bad("%s: data is nested as %s but shape is %s" % (where, natural, shape))
            flat = _flatten(data, []) if len(natural) > 1 else data
        else:
            flat = [data]
        if len(flat) != expected:
            raise bad("%s: shape %s holds %d values, data has %d" % (where, shape, expected,
                                                                      len(flat)))
        _check_values(flat, datatype, where)
        tensors.append(Tensor(name, shape, datatype, flat, each.get("parameters")))
    return tensors


def requested_outputs(body):
    """The output names the request asks for, in its order, or None for all."""
    outputs = body.get("outputs")
    if outputs is None:
        return None
    if not isinstance(outputs, list):
        raise bad('"outputs" must be a list of {"name"}')
    names = []
    for index, each in enumerate(outputs):
        if not isinstance(each, dict) or not isinstance(each.get("name"), str):
            raise bad('outputs[%d] needs "name": a string' % index)
        names.append(each["name"])
    return names


def select_outputs(outputs, names):
    """The outputs the request asked for, in its order (HttpError 400 for one not produced)."""
    if names is None:
        return outputs
    by_name = {o.get("name"): o for o in outputs if isinstance(o, dict)}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise bad("the model has no output %s; it produces %s" % (
            ", ".join(missing), ", ".join(str(n) for n in by_name) or "none"))
    return [by_name[n] for n in names]


def check_declared(tensors, declared):
    """Checks the request's inputs against the tensors the model declares, when it declares."""
    if not declared:
        return
    by_name = {d["name"]: d for d in declared}
    for tensor in tensors:
        spec = by_name.get(tensor.name)
        if spec is None:
            raise bad("the model has no input %s; its inputs are %s"
                      % (tensor.name, ", ".join(by_name)))
        if spec.get("datatype") and spec["datatype"] != tensor.datatype:
            raise bad("input %s is %s; the model takes %s" % (tensor.name, tensor.datatype,
                                                              spec["datatype"]))
        want = spec.get("shape")
        if isinstance(want, list) and (len(want) != len(tensor.shape) or any(
                w != -1 and w != g for w, g in zip(want, tensor.shape))):
            raise bad("input %s has shape %s; the model takes %s (-1: any size)"
                      % (tensor.name, tensor.shape, want))
    missing = [name for name in by_name if name not in {t.name for t in tensors}]
    if missing:
        raise bad("the model also needs input %s" % ", ".join(missing))


def plain(value):
    """The result as JSON values: arrays, tensors and their scalars become lists and numbers."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "replace")
    for convert in ("tolist", "item"):  # numpy arrays and scalars, torch tensors
        method = getattr(value, convert, None)
        if callable(method):
            try:
                return plain(method())
            except (TypeError, ValueError, RuntimeError):
                pass
    raise TypeError("the predictor returned a %s, which JSON cannot carry: return lists, numbers,"
                    " strings or dicts of them" % type(value).__name__)


def flat_of(value):
    """A result's nested lists as (flat values, shape)."""
    if not isinstance(value, list):
        return [value], []
    natural = _natural_shape(value)
    if natural is None:
        raise ValueError("the predictions are ragged; V2 needs a rectangular result (use V1)")
    return (_flatten(value, []) if len(natural) > 1 else value), natural


def datatype_of(flat, hint):
    """The V2 datatype of an output: floats keep the input's float type (FP32 in, FP32 out)."""
    sample = flat[0] if flat else 0.0
    if isinstance(sample, bool):
        return "BOOL"
    if isinstance(sample, int):
        return "INT64"
    if isinstance(sample, float):
        return hint if isinstance(hint, str) and hint.startswith(("FP", "BF")) else "FP64"
    return "BYTES"


def declared_tensors(source, what):
    """get_input_types()/get_output_types() of a predictor, checked; [] when it declares none."""
    method = getattr(source, "get_%s_types" % what, None)
    if not callable(method):
        return []
    declared = method() or []
    if not isinstance(declared, list):
        raise TypeError("get_%s_types() must return a list of {name, datatype, shape}" % what)
    for index, spec in enumerate(declared):
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise TypeError("get_%s_types()[%d] needs a name" % (what, index))
        if spec.get("datatype") not in DATATYPES:
            raise TypeError("get_%s_types()[%d] (%s): datatype %r is not one of %s"
                            % (what, index, spec["name"], spec.get("datatype"),
                               ", ".join(DATATYPES)))
        shape = spec.get("shape")
        if not isinstance(shape, list) or any(not isinstance(d, int) or d < -1 for d in shape):
            raise TypeError("get_%s_types()[%d] (%s): shape must be integers, -1 for any size"
                            % (what, index, spec["name"]))
    return [{"name": s["name"], "datatype": s["datatype"], "shape": list(s["shape"])}
            for s in declared]


# ---------------------------------------------------------------------------------------------
# Models: what the server calls. A plain predictor, or a kserve.Model.

class Model:
    """What the routes need of a served model."""

    name = None
    platform = "fairing4j-python"
    ready = False
    error = None
    inputs = ()
    outputs = ()

    def v1(self, body, headers, verb):
        """A coroutine (on the model thread) answering a V1 predict or explain body."""
        raise NotImplementedError

    def v2(self, tensors, body, headers):
        """A coroutine (on the model thread) answering a checked V2 infer request."""
        raise NotImplementedError


class PlainPredictor(Model):
    """The user's class or functions: found and loaded once on the model thread."""

    def __init__(self, name, path, class_name):
        self.name = name
        self.path = path
        self.class_name = class_name
        self._predict = None
        self._explain = None
        self._feature_names = False

    def load(self):
        started = time.monotonic()
        try:
            module = load_module(self.path)
            target = self._target(module)
            if inspect.isclass(target):
                instance = target()
                if callable(getattr(instance, "load", None)):
                    instance.load()
                self._predict = instance.predict
                self._explain = getattr(instance, "explain", None)
                source = instance
            else:
                loader = getattr(module, "load", None)
                if callable(loader):
                    loader()
                self._predict = target
                self._explain = getattr(module, "explain", None)
                source = module
            self.inputs = declared_tensors(source, "input")
            self.outputs = declared_tensors(source, "output")
            self._feature_names = _takes_two(self._predict)
            self.ready = True
            LOG.info("model loaded from %s in %.1f s", self.path, time.monotonic() - started)
        except BaseException as e:  # the endpoint says why it is not ready; the server stays up
            self.error = "%s: %s" % (type(e).__name__, e)
            LOG.exception("the predictor in %s failed to load", self.path)

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

    def _call(self, function, instances):
        if function is self._predict and self._feature_names:
            return function(instances, None)
        return function(instances)

    async def v1(self, body, headers, verb):
        instances = body.get("instances") if isinstance(body, dict) else None
        if not isinstance(instances, list):
            raise bad('the body needs "instances": a list, e.g. {"instances": [[1, 2, 3]]}')
        function = self._predict
        if verb == "explain":
            if not callable(self._explain):
                raise HttpError(501, "model %s has no explain(instances); define one beside"
                                     " predict to answer :explain" % self.name)
            function = self._explain
        result = plain(self._call(function, instances))
        key = "explanations" if verb == "explain" else "predictions"
        if isinstance(result, dict) and key in result:
            return result, {}
        return {key: result}, {}

    async def v2(self, tensors, body, headers):
        check_declared(tensors, self.inputs)
        if len(tensors) == 1:
            instances = tensors[0].nested()
        else:
            instances = {t.name: t.nested() for t in tensors}
        result = plain(self._call(self._predict, instances))
        if isinstance(result, dict) and "predictions" in result:
            result = result["predictions"]
        declared = {o["name"]: o for o in self.outputs}
        if isinstance(result, dict) and result:
            named = list(result.items())
        else:
            named = [(self.outputs[0]["name"] if self.outputs else "output-0", result)]
        outputs = []
        for name, value in named:
            flat, shape = flat_of(value)
            datatype = declared.get(name, {}).get("datatype") or datatype_of(
                flat, tensors[0].datatype)
            outputs.append({"name": name, "shape": shape, "datatype": datatype, "data": flat})
        return {"outputs": outputs}, {}


class KServeModel(Model):
    """A kserve.Model (the real package's or fairing4j_kserve's): its own __call__ runs
    preprocess, predict and postprocess, sync or async, as KServe's server runs them."""

    platform = "kserve"

    def __init__(self, model, kserve):
        self.model = model
        self.kserve = kserve
        self.name = model.name

    @property
    def ready(self):
        return bool(getattr(self.model, "ready", False))

    @property
    def inputs(self):
        return declared_tensors(self.model, "input")

    @property
    def outputs(self):
        return declared_tensors(self.model, "output")

    async def _invoke(self, payload, headers, verb):
        verbs = getattr(self.kserve, "InferenceVerb", None)
        if verbs is not None:
            answer = self.model(payload, headers=headers, verb=getattr(verbs, verb.upper()))
        else:
            answer = self.model(payload, headers=headers)
        if inspect.isawaitable(answer):
            answer = await answer
        response_headers = {}
        if isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[1], dict):
            answer, response_headers = answer
        return answer, response_headers

    async def v1(self, body, headers, verb):
        if not isinstance(body, dict):
            raise bad('the body must be an object, e.g. {"instances": [[1, 2, 3]]}')
        if "instances" in body and not isinstance(body["instances"], list):
            raise bad('"instances" must be a list')
        if verb == "explain" and type(self.model).explain is base_explain(self.kserve):
            raise HttpError(501, "model %s does not implement explain()" % self.name)
        answer, response_headers = await self._invoke(body, headers, verb)
        return plain(rest_of(answer)), response_headers

    async def v2(self, tensors, body, headers):
        check_declared(tensors, self.inputs)
        infer_input = self.kserve.InferInput
        inputs = [infer_input(name=t.name, shape=list(t.shape), datatype=t.datatype,
                              data=t.flat, parameters=t.parameters) for t in tensors]
        request = self.kserve.InferRequest(model_name=self.name, infer_inputs=inputs,
                                           request_id=body.get("id"),
                                           parameters=body.get("parameters"))
        answer, response_headers = await self._invoke(request, headers, "predict")
        answer = plain(rest_of(answer))
        if not isinstance(answer, dict) or not isinstance(answer.get("outputs"), list):
            raise TypeError("the model's V2 answer must be an InferResponse, or a dict with"
                            " \"outputs\"; it returned %s" % type(answer).__name__)
        return answer, response_headers


def rest_of(answer):
    """An InferResponse as its REST dict (KServe's to_rest() gives (dict, json length) now, the
    dict in older releases); anything else as it is."""
    if hasattr(answer, "to_rest"):
        answer = answer.to_rest()
        if isinstance(answer, tuple):
            answer = answer[0]
        if isinstance(answer, (bytes, bytearray)):
            raise TypeError("the model's answer uses binary tensor data, which this server does"
                            " not send: return JSON data")
    return answer


def status_of(error):
    """The HTTP status of an error the model raised, as KServe's server answers it."""
    names = {c.__name__ for c in type(error).__mro__}
    if "InvalidInput" in names:
        return 400
    if "ModelNotFound" in names:
        return 404
    if "ModelNotReady" in names:
        return 503
    if "UnsupportedProtocol" in names or isinstance(error, NotImplementedError):
        return 501
    return 500


def base_explain(kserve):
    model = getattr(kserve, "Model", None)
    return getattr(model, "explain", None)


def load_module(path, run_name=None):
    name = run_name or os.path.splitext(os.path.basename(path))[0]
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)  # its sibling modules import as in a script
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ImportError("cannot import %s" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


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


# ---------------------------------------------------------------------------------------------
# HTTP: requests read with limits, routed, answered.

V1_MODEL = re.compile(r"^/v1/models/([^/:]+)$")
V1_VERB = re.compile(r"^/v1/models/([^/:]+):(predict|explain)$")
V2_MODEL = re.compile(r"^/v2/models/([^/]+)(?:/versions/([^/]+))?(/ready|/infer)?$")


class Request:
    __slots__ = ("method", "path", "version", "headers", "body", "keep_alive")

    def __init__(self, method, path, version, headers):
        self.method = method
        self.path = path
        self.version = version
        self.headers = headers
        self.body = b""
        self.keep_alive = True


class Server:
    """The HTTP side: connections on one event loop, the models' calls on the model thread."""

    def __init__(self, models, model_thread, expected=None, version=None):
        self.models = {m.name: m for m in models}
        self.model_thread = model_thread
        self.expected = expected
        self.version = version
        self.max_connections = _env_int("FAIRING4J_MAX_CONNECTIONS", 1024, 1)
        self.max_pending = _env_int("FAIRING4J_MAX_PENDING", 512, 1)
        self.backlog = _env_int("FAIRING4J_BACKLOG", 1024, 1)
        self.access_log = os.environ.get("FAIRING4J_ACCESS_LOG", "1") not in ("0", "false")
        self.connections = 0
        self.pending = 0
        self.in_flight = 0
        self._server = None
        self._stopping = None
        self._connections = set()

    # -- lifecycle ------------------------------------------------------------------------------

    def serve(self, host, port):
        """Serves until SIGTERM or SIGINT; returns the exit code."""
        return asyncio.run(self._main(host, port))

    async def _main(self, host, port):
        loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, self._stop, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # not the main thread: whoever started us stops us
        self._server = await asyncio.start_server(self._connection, host, port,
                                                  backlog=self.backlog, limit=MAX_HEAD,
                                                  reuse_address=True)
        bound = self._server.sockets[0].getsockname()
        names = ", ".join(self.models)
        LOG.info("serving model %s on %s:%d (V1: /v1/models/%s:predict, V2: /v2/models/%s/infer)",
                 names, bound[0], bound[1], names.split(", ")[0], names.split(", ")[0])
        if self.expected and self.expected not in self.models:
            LOG.warning("fairing4j expects the model %s (--model_name), but the server serves %s:"
                        " construct the model with that name (e.g. Model(args.model_name))",
                        self.expected, names)
        await self._stopping.wait()
        self._server.close()
        await self._server.wait_closed()
        deadline = loop.time() + STOP_GRACE
        while self.in_flight and loop.time() < deadline:
            await asyncio.sleep(0.05)
        for writer in list(self._connections):
            writer.close()
        return 0

    def _stop(self, signum):
        LOG.info("signal %d: stopping", signum)
        self._stopping.set()

    # -- connections ----------------------------------------------------------------------------

    async def _connection(self, reader, writer):
        if self.connections >= self.max_connections:
            await self._write(writer, 503, {"error": "the server holds %d connections, its bound"
                                                     " (FAIRING4J_MAX_CONNECTIONS); retry"
                                                     % self.connections},
                              {"Retry-After": "1"}, False, "GET")
            writer.close()
            return
        self.connections += 1
        self._connections.add(writer)
        try:
            timeout = HEAD_TIMEOUT
            while not self._stopping.is_set():
                request = await self._read(reader, writer, timeout)
                if request is None:
                    break
                self.in_flight += 1
                try:
                    keep = await self._answer(request, writer)
                finally:
                    self.in_flight -= 1
                if not keep:
                    break
                timeout = IDLE_TIMEOUT
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            pass
        finally:
            self.connections -= 1
            self._connections.discard(writer)
            writer.close()

    async def _read(self, reader, writer, timeout):
        """The next request, or None when the client is gone or sent something unreadable."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        except asyncio.IncompleteReadError as e:
            if e.partial.strip():
                await self._reject(writer, 400, "the request ended inside its headers")
            return None
        except asyncio.LimitOverrunError:
            await self._reject(writer, 431, "the request line and headers are over %d bytes"
                               % MAX_HEAD)
            return None
        except asyncio.TimeoutError:
            return None
        try:
            request = self._parse_head(head)
        except HttpError as e:
            await self._reject(writer, e.status, e.message)
            return None
        try:
            request.body = await asyncio.wait_for(self._read_body(request, reader, writer),
                                                  BODY_TIMEOUT)
        except HttpError as e:
            await self._reject(writer, e.status, e.message)
            return None
        except asyncio.TimeoutError:
            await self._reject(writer, 408, "the body did not arrive within %d s"
                               % BODY_TIMEOUT)
            return None
        return request

    def _parse_head(self, head):
        try:
            text = head.decode("iso-8859-1")
        except UnicodeDecodeError:
            raise bad("the request head is not text")
        lines = text.split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            if len(parts) == 3 and parts[2].startswith("HTTP/"):
                raise HttpError(505, "this server speaks HTTP/1.0 and HTTP/1.1")
            raise bad("the request line %r is not METHOD PATH HTTP/1.1" % lines[0][:80])
        method, target, version = parts
        headers = {}
        count = 0
        for line in lines[1:]:
            if not line:
                continue
            count += 1
            if count > MAX_HEADERS:
                raise HttpError(431, "the request has over %d headers" % MAX_HEADERS)
            name, sep, value = line.partition(":")
            if not sep or not name or name != name.strip():
                raise bad("the header line %r is not NAME: VALUE" % line[:80])
            key = name.lower()
            value = value.strip()
            if key in headers:
                if key == "content-length" and headers[key] != value:
                    raise bad("the request has two different Content-Length headers")
                headers[key] = headers[key] + ", " + value
            else:
                headers[key] = value
        path = unquote(target.split("?", 1)[0])
        request = Request(method, path, version, headers)
        connection = headers.get("connection", "").lower()
        request.keep_alive = ("close" not in connection if version == "HTTP/1.1"
                              else "keep-alive" in connection)
        return request

    async def _read_body(self, request, reader, writer):
        headers = request.headers
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        length = headers.get("content-length")
        if chunked and length is not None:
            raise bad("the request has both Content-Length and Transfer-Encoding: chunked")
        if length is not None:
            if not length.isdigit():
                raise bad("Content-Length %r is not a non-negative whole number" % length[:20])
            size = int(length)
            if size > MAX_BODY:
                raise HttpError(413, "the body is %d bytes; this server takes up to %d"
                                % (size, MAX_BODY))
        elif not chunked:
            return b""
        if headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if not chunked:
            return await reader.readexactly(size) if size else b""
        # What proxies may send (the API server's service proxy among them).
        raw = bytearray()
        while True:
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.LimitOverrunError:
                raise bad("a chunk size line is too long")
            digits = line.split(b";", 1)[0].strip()
            try:
                chunk = int(digits, 16)
            except ValueError:
                raise bad("a chunk size %r is not hexadecimal" % digits[:20].decode(
                    "ascii", "replace"))
            if chunk < 0:
                raise bad("a chunk size is negative")
            if chunk == 0:
                while True:  # trailers
                    trailer = await reader.readuntil(b"\n")
                    if trailer in (b"\r\n", b"\n"):
                        return bytes(raw)
            if len(raw) + chunk > MAX_BODY:
                raise HttpError(413, "the body is over %d bytes" % MAX_BODY)
            raw += await reader.readexactly(chunk)
            await reader.readuntil(b"\n")

    async def _reject(self, writer, status, message):
        LOG.info("rejected a request: %d %s", status, message)
        try:
            await self._write(writer, status, {"error": message}, {}, False, "GET")
        except (ConnectionError, asyncio.TimeoutError):
            pass

    async def _write(self, writer, status, body, headers, keep_alive, method):
        payload = b"" if body is None else json.dumps(body).encode("utf-8")
        head = ["HTTP/1.1 %d %s" % (status, REASONS.get(status, "Status")),
                "Server: " + SERVER_NAME, "Content-Type: application/json",
                "Content-Length: %d" % len(payload)]
        if not keep_alive:
            head.append("Connection: close")
        for name, value in headers.items():
            head.append("%s: %s" % (name, str(value).replace("\r", " ").replace("\n", " ")))
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1", "replace")
                     + (b"" if method == "HEAD" else payload))
        await asyncio.wait_for(writer.drain(), WRITE_TIMEOUT)

    async def _answer(self, request, writer):
        started = time.monotonic()
        quiet = False
        headers = {}
        try:
            status, body, headers, quiet = await self._route(request)
        except HttpError as e:
            status, body, headers = e.status, {"error": e.message}, e.headers
            if e.close:
                request.keep_alive = False
        except Exception as e:  # the user's code raised: its message answers, the trace is logged
            status = status_of(e)
            if status == 500:
                LOG.exception("%s %s failed", request.method, request.path)
                body = {"error": "%s: %s" % (type(e).__name__, e)}
            else:
                body = {"error": str(e) or type(e).__name__}
        keep = request.keep_alive and not self._stopping.is_set()
        await self._write(writer, status, body, headers, keep, request.method)
        if self.access_log:
            LOG.log(logging.DEBUG if quiet else logging.INFO, "%s %s %d %.1f ms",
                    request.method, request.path, status, (time.monotonic() - started) * 1000)
        return keep

    # -- routes ---------------------------------------------------------------------------------

    async def _route(self, request):
        """(status, body, headers, quiet) for the request, or HttpError."""
        path = request.path.rstrip("/") if request.path != "/" else request.path
        method = request.method
        get = method in ("GET", "HEAD")
        if path in ("/", ""):
            self._allow(method, "GET")
            return self._readiness(self._default_model()) + ({}, True)
        if path == "/v1/models" or path == "/v2/models":
            self._allow(method, "GET")
            return 200, {"models": list(self.models)}, {}, False
        found = V1_MODEL.match(path)
        if found:
            self._allow(method, "GET")
            return self._readiness(self._model(found.group(1))) + ({}, True)
        found = V1_VERB.match(path)
        if found:
            self._allow(method, "POST")
            model = self._model(found.group(1))
            body = self._json(request)
            self._require_ready(model)
            answer, headers = await self._on_model(model.v1(body, request_headers(request),
                                                            found.group(2)))
            return 200, answer, headers, False
        if path == "/v2":
            self._allow(method, "GET")
            return 200, {"name": SERVER_NAME, "version": SERVER_VERSION, "extensions": []}, {}, \
                False
        if path == "/v2/health/live":
            self._allow(method, "GET")
            return 200, {"live": True}, {}, True
        if path == "/v2/health/ready":
            self._allow(method, "GET")
            if self.models and all(m.ready for m in self.models.values()):
                return 200, {"ready": True}, {}, True
            raise HttpError(503, "not every model is ready: %s" % self._not_ready())
        found = V2_MODEL.match(path)
        if found:
            model = self._model(found.group(1))
            self._check_version(model, found.group(2))
            what = found.group(3)
            if what == "/ready":
                self._allow(method, "GET")
                status, body = self._readiness(model)
                return status, body, {}, True
            if what is None:
                self._allow(method, "GET")
                return 200, self._metadata(model), {}, False
            self._allow(method, "POST")
            body = self._json(request)
            tensors = read_inputs(body)
            names = requested_outputs(body)
            self._require_ready(model)
            answer, headers = await self._on_model(model.v2(tensors, body,
                                                            request_headers(request)))
            answer = {k: v for k, v in answer.items() if v is not None}
            answer["outputs"] = select_outputs(answer.get("outputs") or [], names)
            answer["model_name"] = model.name
            if self.version:
                answer["model_version"] = self.version
            if isinstance(body.get("id"), str):
                answer["id"] = body["id"]
            return 200, answer, headers, False
        if path.startswith("/v1/") or path.startswith("/v2/"):
            raise HttpError(404, "%s is not a path of the V1 or V2 protocol; try /v1/models/%s"
                                 ":predict or /v2/models/%s/infer" % (
                                     path, self._default_name(), self._default_name()))
        if get and path == "/metrics":
            raise HttpError(404, "this server has no /metrics")
        raise HttpError(404, "%s is not a path of this server; try /v1/models/%s"
                        % (path, self._default_name()))

    @staticmethod
    def _allow(method, allowed):
        methods = ("GET", "HEAD") if allowed == "GET" else (allowed,)
        if method not in methods:
            raise HttpError(405, "%s takes %s, not %s" % ("this path", allowed, method),
                            {"Allow": ", ".join(methods)})

    def _default_name(self):
        return next(iter(self.models), "model")

    def _default_model(self):
        return self._model(self._default_name())

    def _model(self, name):
        model = self.models.get(name)
        if model is None:
            raise HttpError(404, "model %s is not served here; this server serves %s"
                            % (name, ", ".join(self.models) or "no model"))
        return model

    def _check_version(self, model, version):
        if version is not None and self.version is not None and version != self.version:
            raise HttpError(404, "model %s has version %s only, not %s"
                            % (model.name, self.version, version))

    def _not_ready(self):
        return ", ".join("%s (%s)" % (m.name, m.error or "still loading")
                         for m in self.models.values() if not m.ready)

    def _readiness(self, model):
        answer = {"name": model.name, "ready": bool(model.ready)}
        if model.error:
            answer["error"] = model.error
        return (200 if model.ready else 503), answer

    def _require_ready(self, model):
        if not model.ready:
            raise HttpError(503, "model %s is not ready: %s" % (model.name,
                                                                model.error or "still loading"))

    def _metadata(self, model):
        try:
            inputs, outputs = list(model.inputs), list(model.outputs)
        except (TypeError, ValueError) as e:
            raise HttpError(500, "the model's tensor declarations are wrong: %s" % e)
        answer = {"name": model.name, "platform": model.platform, "inputs": inputs,
                  "outputs": outputs}
        if self.version:
            answer["versions"] = [self.version]
        return answer

    @staticmethod
    def _json(request):
        raw = request.body
        if not raw:
            raise bad("the request has no body; send JSON with Content-Type: application/json")
        try:
            return json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise bad("the body is not UTF-8 text")
        except RecursionError:
            raise bad("the body is nested too deeply to be a request")
        except ValueError as e:
            raise bad("the body is not JSON: %s" % e)

    async def _on_model(self, coroutine):
        if self.pending >= self.max_pending:
            coroutine.close()
            raise HttpError(503, "%d requests already wait for the model, the bound"
                                 " (FAIRING4J_MAX_PENDING); retry" % self.pending,
                            {"Retry-After": "1"})
        self.pending += 1
        try:
            return await asyncio.wrap_future(self.model_thread.await_(coroutine))
        except RecursionError:
            raise bad("the request is nested too deeply for the model")
        finally:
            self.pending -= 1


def request_headers(request):
    """The request's headers as KServe hands them to a model: a mutable dict, lower-case keys."""
    return dict(request.headers)


# ---------------------------------------------------------------------------------------------
# Start: a plain predictor loads on the model thread while the server answers; a kserve file
# runs as the program it is.

KSERVE_IMPORT = re.compile(r"^\s*(import\s+kserve\b|from\s+kserve(\.[\w.]+)?\s+import\b)",
                           re.MULTILINE)


def bind_host():
    """The address to listen on: what fairing4j's local clusters set; every interface in a pod or
    another container (where loopback is unreachable from outside); loopback anywhere else."""
    host = os.environ.get("FAIRING4J_SERVER_HOST")
    if host:
        return host
    in_container = (os.environ.get("KUBERNETES_SERVICE_HOST") or os.path.exists("/.dockerenv")
                    or os.path.exists("/run/.containerenv"))
    return "0.0.0.0" if in_container else "127.0.0.1"


def serve(models, port, expected=None, version=None, model_thread=None):
    """Serves models (Model values) on port until a signal stops it; the exit code."""
    thread = model_thread or ModelThread()
    try:
        return Server(models, thread, expected, version).serve(bind_host(), port)
    finally:
        thread.stop()


def serve_kserve(options, name, port):
    """Runs a file written for KServe's SDK: as its own server when the image has kserve, else
    with fairing4j_kserve standing in for kserve and this server serving its models."""
    # KServe's flags, as its server reads them (kserve.model_server parses sys.argv on import).
    sys.argv = [options.predictor, "--http_port", str(port), "--model_name", name,
                "--enable_grpc", "false"]
    kserve = real_kserve()
    if kserve is None:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import fairing4j_kserve
        kserve = fairing4j_kserve.install(
            lambda models: serve([KServeModel(m, kserve) for m in models], port, name,
                                 options.model_version))
        LOG.info("kserve is not installed in this image: fairing4j's server serves the file's"
                 " kserve.Model (the custom-model contract); add kserve to the requirements to"
                 " run KServe's own server")
    directory = os.path.dirname(os.path.abspath(options.predictor))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    namespace = runpy.run_path(options.predictor, run_name="__main__")
    if getattr(kserve, "_fairing4j_served", False):
        return 0
    # The file defines a model but starts no server (no __main__ block): serve its class.
    base = getattr(kserve, "Model", object)
    classes = [c for c in namespace.values() if inspect.isclass(c) and issubclass(c, base)
               and c is not base and c.__module__ == "__main__"]
    if options.class_name:
        classes = [c for c in classes if c.__name__ == options.class_name]
    if len(classes) != 1:
        LOG.error("%s starts no server and defines %s kserve.Model subclasses: call"
                  " kserve.ModelServer().start([model]) in it, or name the class with"
                  " className(..)", options.predictor, len(classes) or "no")
        return 1
    model = classes[0](name)
    if not getattr(model, "ready", False):
        model.load()
    return serve([KServeModel(model, kserve)], port, name, options.model_version)


def real_kserve():
    """The image's kserve package, or None when it has none or it does not import."""
    try:
        import kserve
        return kserve
    except ModuleNotFoundError as e:
        if e.name == "kserve":
            return None
        reason = "%s: %s" % (type(e).__name__, e)
    except Exception as e:
        reason = "%s: %s" % (type(e).__name__, e)
    for module in [m for m in sys.modules if m == "kserve" or m.startswith("kserve.")]:
        del sys.modules[module]
    LOG.warning("the image's kserve package does not import (%s): serving through fairing4j's"
                " kserve.Model server instead; install kserve with its dependencies to run"
                " KServe's own server", reason)
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--predictor", required=True)
    parser.add_argument("--class", dest="class_name")
    parser.add_argument("--model_name")
    parser.add_argument("--model_version")
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
    options.model_version = options.model_version or os.environ.get("MODEL_VERSION") or None
    port = options.http_port or int(os.environ.get("PORT") or 8080)
    try:
        with open(options.predictor, encoding="utf-8") as source:
            kserve_file = KSERVE_IMPORT.search(source.read()) is not None
    except OSError as e:
        LOG.error("cannot read the predictor %s: %s", options.predictor, e)
        return 2
    if kserve_file:
        return serve_kserve(options, name, port)
    predictor = PlainPredictor(name, options.predictor, options.class_name)
    thread = ModelThread()
    # Loads while the server answers, so readiness says "loading" rather than refusing.
    thread.call(predictor.load)
    return serve([predictor], port, None, options.model_version, thread)


if __name__ == "__main__":
    sys.exit(main())
