"""The kserve.Model contract, for images without KServe's Python SDK.

Written by fairing4j beside its model server. A predictor file written for KServe (a subclass of
kserve.Model, started with kserve.ModelServer().start([model])) runs unchanged where the image
has no kserve package: install() puts this module tree in sys.modules under the name kserve, and
ModelServer.start hands the models to fairing4j's server, which answers KServe's V1 and V2 REST
protocols as KServe's server does. Standard library only; numpy is used where the file asks for
arrays (as_numpy, set_data_from_numpy) and the image has it.

What it holds: kserve.Model (load, start, stop, healthy, preprocess, predict, postprocess,
explain, validate, get_input_types, get_output_types, __call__ with KServe's order and its
(response, response_headers) answer), kserve.ModelServer (start, register_model, stop) and
kserve.model_server.parser with KServE's flags, InferRequest/InferInput/InferResponse/
InferOutput/RequestedOutput, kserve.errors, kserve.logging, kserve.utils.utils
(generate_uuid, strtobool, get_predict_input, get_predict_response). A kserve module it does not
hold (kserve.storage, the Kubernetes client) fails to import with a message that names kserve.
"""

import argparse
import importlib.abc
import importlib.machinery
import inspect
import logging as _logging
import sys
import time
import types
import uuid
from enum import Enum

__version__ = "0.0.0+fairing4j"

logger = _logging.getLogger("kserve")
trace_logger = _logging.getLogger("kserve.trace")


# -- errors -------------------------------------------------------------------------------------

class _Reasoned:
    """KServe's errors print their reason."""

    reason = ""

    def __str__(self):
        return self.reason


class InvalidInput(_Reasoned, ValueError):
    """A bad request: answered 400."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class InferenceError(_Reasoned, RuntimeError):
    """An error while inferring: answered 500."""

    def __init__(self, reason, status=None, debug_details=None):
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.debug_details = debug_details


class ModelNotFound(_Reasoned, Exception):
    def __init__(self, model_name=None):
        super().__init__(model_name)
        self.reason = "Model with name %s does not exist." % model_name


class ModelNotReady(_Reasoned, RuntimeError):
    def __init__(self, model_name, detail=None):
        super().__init__(model_name)
        self.reason = "Model with name %s is not ready." % model_name + (
            " " + detail if detail else "")


class ModelMissingError(_Reasoned, Exception):
    def __init__(self, path):
        super().__init__(path)
        self.path = path
        self.reason = path


class UnsupportedProtocol(_Reasoned, Exception):
    def __init__(self, protocol_version=None):
        super().__init__(protocol_version)
        self.reason = "Unsupported protocol %s." % protocol_version


class ServerNotReady(RuntimeError):
    pass


class ServerNotLive(RuntimeError):
    pass


class NoModelReady(RuntimeError):
    def __init__(self, models, detail=None):
        self.models = models
        self.detail = detail

    def __str__(self):
        names = ", ".join(getattr(m, "name", "?") for m in self.models)
        text = "Models with name %s are not ready." % names
        return text + (" " + self.detail if self.detail else "")


# -- tensors ------------------------------------------------------------------------------------

_NUMPY_TYPES = {
    "BOOL": "bool", "UINT8": "uint8", "UINT16": "uint16", "UINT32": "uint32",
    "UINT64": "uint64", "INT8": "int8", "INT16": "int16", "INT32": "int32", "INT64": "int64",
    "FP16": "float16", "FP32": "float32", "FP64": "float64", "BYTES": "object",
}


def _numpy():
    try:
        import numpy
        return numpy
    except ImportError:
        raise InvalidInput("as_numpy() needs numpy, which this image lacks: add numpy to the"
                           " requirements, or read .data (a flat list)")


def _tolist(value):
    method = getattr(value, "tolist", None)
    return method() if callable(method) else value


def _flat(value):
    if isinstance(value, (list, tuple)):
        out = []
        for item in value:
            out.extend(_flat(item) if isinstance(item, (list, tuple)) else [item])
        return out
    return [value]


def from_np_dtype(dtype):
    name = str(dtype)
    for datatype, numpy_name in _NUMPY_TYPES.items():
        if numpy_name == name:
            return datatype
    if name.startswith("<U") or name.startswith("|S") or name == "object":
        return "BYTES"
    return None


def to_np_dtype(datatype):
    name = _NUMPY_TYPES.get(datatype)
    return None if name is None else _numpy().dtype(name)


class _Tensor:
    def __init__(self, name, shape, datatype, data=None, parameters=None):
        self._name = name
        self._shape = list(shape) if shape is not None else []
        self._datatype = (datatype or "").upper()
        self._parameters = parameters
        self._data = data

    @property
    def name(self):
        return self._name

    @property
    def datatype(self):
        return self._datatype

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, shape):
        self._shape = list(shape)

    @property
    def data(self):
        return self._data

    @data.setter
    def data(self, data):
        self._data = data

    @property
    def parameters(self):
        return self._parameters

    @parameters.setter
    def parameters(self, value):
        self._parameters = value

    def as_numpy(self):
        numpy = _numpy()
        dtype = to_np_dtype(self._datatype)
        if dtype is None:
            raise InvalidInput("invalid datatype %s in the input" % self._datatype)
        return numpy.array(self._data, dtype=dtype).reshape(self._shape)

    def as_string(self):
        if self._datatype != "BYTES":
            raise InvalidInput("invalid datatype %s in the input" % self._datatype)
        return [s.decode("utf-8") if isinstance(s, bytes) else s for s in _flat(self._data)]

    def set_data_from_numpy(self, tensor, binary_data=False):
        datatype = from_np_dtype(getattr(tensor, "dtype", None))
        if datatype is None or (datatype != self._datatype and self._datatype):
            raise InvalidInput("got a numpy array of %s for a tensor of %s"
                               % (getattr(tensor, "dtype", type(tensor).__name__),
                                  self._datatype))
        self._data = _flat(_tolist(tensor))
        self._shape = list(getattr(tensor, "shape", [len(self._data)]))

    def to_dict(self):
        answer = {"name": self._name, "shape": list(self._shape), "datatype": self._datatype,
                  "data": _flat(_tolist(self._data)) if self._data is not None else None}
        if self._parameters:
            answer["parameters"] = dict(self._parameters)
        return answer

    def __eq__(self, other):
        return (type(self) is type(other) and self._name == other._name
                and self._shape == other._shape and self._datatype == other._datatype
                and _tolist(self._data) == _tolist(other._data))

    def __repr__(self):
        return "%s(name=%r, shape=%r, datatype=%r)" % (type(self).__name__, self._name,
                                                        self._shape, self._datatype)


class InferInput(_Tensor):
    """An input tensor of a V2 request."""


class InferOutput(_Tensor):
    """An output tensor of a V2 response."""


class RequestedOutput:
    def __init__(self, name, parameters=None):
        self.name = name
        self.parameters = parameters

    @property
    def binary_data(self):
        return False


class InferRequest:
    """A V2 inference request as a kserve.Model receives it."""

    def __init__(self, model_name, infer_inputs, request_id=None, raw_inputs=None,
                 from_grpc=False, parameters=None, request_outputs=None, model_version=None):
        self.id = request_id
        self.model_name = model_name
        self.inputs = infer_inputs
        self.parameters = parameters
        self.from_grpc = from_grpc
        self.request_outputs = request_outputs
        self.model_version = model_version

    @property
    def use_binary_outputs(self):
        return False

    def get_input_by_name(self, name):
        return next((i for i in self.inputs if i.name == name), None)

    def as_dataframe(self):
        try:
            import pandas
        except ImportError:
            raise InvalidInput("as_dataframe() needs pandas, which this image lacks")
        return pandas.DataFrame({i.name: _flat(i.data) for i in self.inputs})

    def to_rest(self):
        answer = {"id": self.id, "inputs": [i.to_dict() for i in self.inputs]}
        if self.parameters:
            answer["parameters"] = dict(self.parameters)
        return answer

    def to_dict(self):
        return self.to_rest()

    def __repr__(self):
        return "InferRequest(model_name=%r, id=%r, inputs=%r)" % (self.model_name, self.id,
                                                                  self.inputs)


class InferResponse:
    """A V2 inference response as a kserve.Model returns it."""

    def __init__(self, response_id, model_name, infer_outputs, model_version=None,
                 raw_outputs=None, from_grpc=False, parameters=None, use_binary_outputs=False,
                 requested_outputs=None):
        self.id = response_id
        self.model_name = model_name
        self.model_version = model_version
        self.outputs = infer_outputs
        self.parameters = parameters
        self.from_grpc = from_grpc

    @classmethod
    def from_rest(cls, response):
        outputs = [InferOutput(o["name"], o["shape"], o["datatype"], o.get("data"),
                               o.get("parameters")) for o in response.get("outputs", [])]
        return cls(response.get("id"), response.get("model_name"), outputs,
                   response.get("model_version"), parameters=response.get("parameters"))

    def get_output_by_name(self, name):
        return next((o for o in self.outputs if o.name == name), None)

    def to_rest(self):
        answer = {"id": self.id, "model_name": self.model_name,
                  "outputs": [o.to_dict() for o in self.outputs]}
        if self.model_version is not None:
            answer["model_version"] = self.model_version
        if self.parameters:
            answer["parameters"] = dict(self.parameters)
        return answer

    def to_dict(self):
        return self.to_rest()

    def __repr__(self):
        return "InferResponse(model_name=%r, id=%r, outputs=%r)" % (self.model_name, self.id,
                                                                    self.outputs)


# -- models -------------------------------------------------------------------------------------

class PredictorProtocol(Enum):
    REST_V1 = "v1"
    REST_V2 = "v2"
    GRPC_V2 = "grpc-v2"


class InferenceVerb(Enum):
    EXPLAIN = 1
    PREDICT = 2


class BaseKServeModel:
    def __init__(self, name):
        self.name = name
        self.ready = False
        self.engine = False

    async def healthy(self):
        return self.ready

    def load(self):
        self.ready = True
        return self.ready

    def start(self):
        self.ready = True

    async def start_engine(self):
        self.ready = True

    def stop(self):
        self.ready = False

    def stop_engine(self):
        self.ready = False


class InferenceModel(BaseKServeModel):
    def get_input_types(self):
        return []

    def get_output_types(self):
        return []


async def _maybe_await(value):
    return await value if inspect.isawaitable(value) else value


class Model(InferenceModel):
    """KServe's custom-model base class: override load, preprocess, predict, postprocess."""

    def __init__(self, name, return_response_headers=False):
        super().__init__(name)
        self.predictor_host = None
        self.explainer_host = None
        self.protocol = PredictorProtocol.REST_V1.value
        self.timeout = 600
        self.use_ssl = False
        self.enable_latency_logging = False
        self.required_response_headers = return_response_headers

    async def __call__(self, body, headers=None, verb=InferenceVerb.PREDICT):
        response_headers = {}
        started = time.time()
        payload = await _maybe_await(self.preprocess(body, headers))
        preprocessed = time.time()
        payload = self.validate(payload)
        if verb == InferenceVerb.EXPLAIN:
            response = await _maybe_await(self.explain(payload, headers))
        elif self.required_response_headers:
            response = await _maybe_await(self.predict(payload, headers, response_headers))
        else:
            response = await _maybe_await(self.predict(payload, headers))
        predicted = time.time()
        if self.required_response_headers:
            response = await _maybe_await(self.postprocess(response, headers, response_headers))
        else:
            response = await _maybe_await(self.postprocess(response, headers))
        if self.enable_latency_logging:
            trace_logger.info("requestId: %s, preprocess_ms: %.3f, predict_ms: %.3f,"
                              " postprocess_ms: %.3f",
                              (headers or {}).get("x-request-id", "N.A."),
                              (preprocessed - started) * 1000, (predicted - preprocessed) * 1000,
                              (time.time() - predicted) * 1000)
        return response, response_headers

    def validate(self, payload):
        if isinstance(payload, dict) and "instances" in payload and not isinstance(
                payload["instances"], list):
            raise InvalidInput('Expected "instances" to be a list')
        if isinstance(payload, dict) and "inputs" in payload and not isinstance(
                payload["inputs"], list):
            raise InvalidInput('Expected "inputs" to be a list')
        return payload

    async def preprocess(self, payload, headers=None):
        return payload

    async def predict(self, payload, headers=None, response_headers=None):
        raise NotImplementedError("%s does not implement predict()" % type(self).__name__)

    async def explain(self, payload, headers=None):
        raise NotImplementedError("%s does not implement explain()" % type(self).__name__)

    async def postprocess(self, result, headers=None, response_headers=None):
        return result


class ModelRepository:
    def __init__(self, models_dir=None):
        self.models = {}
        self.models_dir = models_dir

    def update(self, model, name=None):
        self.models[name or model.name] = model

    def get_model(self, name):
        return self.models.get(name)

    def get_models(self):
        return dict(self.models)

    def unload(self, name):
        model = self.models.pop(name, None)
        if model is None:
            raise KeyError("model %s does not exist" % name)
        model.stop()


# -- the server ---------------------------------------------------------------------------------

def strtobool(value):
    text = str(value).strip().lower()
    if text in ("y", "yes", "t", "true", "on", "1"):
        return True
    if text in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError("invalid truth value %r" % (value,))


parser = argparse.ArgumentParser(add_help=False,
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
for _flag, _default, _type in (
        ("--http_port", 8080, int), ("--grpc_port", 8081, int), ("--workers", 1, int),
        ("--max_threads", 4, int), ("--max_asyncio_workers", None, int),
        ("--enable_grpc", True, strtobool), ("--enable_docs_url", False, strtobool),
        ("--enable_latency_logging", True, strtobool), ("--configure_logging", True, strtobool),
        ("--log_config_file", None, str), ("--access_log_format", None, str),
        ("--model_name", "model", str), ("--predictor_host", None, str),
        ("--protocol", "v1", str), ("--predictor_protocol", "v1", str),
        ("--predictor_use_ssl", False, strtobool),
        ("--predictor_request_timeout_seconds", 600, int),
        ("--predictor_request_retries", 0, int)):
    parser.add_argument(_flag, default=_default, type=_type)
parser.add_argument("--event-loop", dest="event_loop", default="auto")
parser.add_argument("--timeout-keep-alive", dest="timeout_keep_alive", default=65, type=int)
parser.add_argument("--enable_predictor_health_check", action="store_true")
args, _ = parser.parse_known_args()

_serve = None  # set by install(): fairing4j's server, given the registered models


class _NoFastAPI:
    """KServe's FastAPI app, which this stand-in has not: what cannot matter is ignored, said."""

    def add_middleware(self, middleware, *args, **kwargs):
        logger.warning("app.add_middleware(%s) is ignored: fairing4j's kserve.Model server has no"
                       " FastAPI app (add kserve to the image's requirements to use one)",
                       getattr(middleware, "__name__", middleware))

    def __getattr__(self, name):
        raise AttributeError("kserve.model_server.app.%s: fairing4j's kserve.Model server has no"
                             " FastAPI app; add kserve (with fastapi) to the image's requirements"
                             % name)


app = _NoFastAPI()


class ModelServer:
    """Registers kserve.Model values and serves them through fairing4j's model server."""

    def __init__(self, http_port=None, grpc_port=None, workers=1, max_threads=4,
                 max_asyncio_workers=None, registered_models=None, enable_grpc=None,
                 enable_docs_url=False, enable_latency_logging=None, access_log_format=None,
                 **ignored):
        self.http_port = http_port if http_port is not None else args.http_port
        self.grpc_port = grpc_port if grpc_port is not None else args.grpc_port
        self.workers = workers
        self.registered_models = registered_models or ModelRepository()
        self.enable_latency_logging = (args.enable_latency_logging
                                       if enable_latency_logging is None
                                       else enable_latency_logging)
        if workers and workers > 1:
            logger.warning("workers=%d: fairing4j's kserve.Model server runs one process; scale"
                           " with the deployer's replicas(..)", workers)

    def register_model(self, model, name=None):
        if not model.name:
            raise ValueError("Failed to register model, model.name must be provided.")
        self.registered_models.update(model, name or model.name)
        logger.info("Registering model: %s", name or model.name)

    def register_exception_handler(self, handler):
        logger.warning("register_exception_handler is ignored by fairing4j's kserve.Model server")

    def start(self, models):
        if not isinstance(models, list):
            raise RuntimeError("Unknown model collection types")
        ready = False
        for model in models:
            if not isinstance(model, BaseKServeModel):
                raise RuntimeError("Model type should be 'BaseKServeModel'")
            if model.ready:
                ready = True
                self.register_model(model)
                model.enable_latency_logging = self.enable_latency_logging
            model.start()
        if models and not ready:
            raise NoModelReady(models)
        module = sys.modules.get("kserve")
        if module is not None:
            module._fairing4j_served = True
        code = _serve(list(self.registered_models.get_models().values()))
        for model in self.registered_models.get_models().values():
            model.stop()
        return code

    def stop(self, sig=None):
        for name in list(self.registered_models.get_models()):
            self.registered_models.unload(name)


# -- utils --------------------------------------------------------------------------------------

def generate_uuid():
    return str(uuid.uuid4())


def get_predict_input(payload):
    """The model's input: a V1 body's instances (a numpy array where numpy is installed), a V2
    request's first input as numpy."""
    if isinstance(payload, InferRequest):
        return payload.inputs[0].as_numpy()
    if isinstance(payload, dict):
        instances = payload.get("instances", payload.get("inputs"))
        try:
            import numpy
            return numpy.array(instances)
        except ImportError:
            return instances
    return payload


def get_predict_response(payload, result, model_name):
    """result as the answer to payload: {"predictions": [...]} for V1, an InferResponse for V2."""
    if isinstance(payload, InferRequest):
        values = _tolist(result)
        flat = _flat(values)
        shape = list(getattr(result, "shape", [len(flat)]))
        datatype = from_np_dtype(getattr(result, "dtype", None)) or (
            "INT64" if flat and isinstance(flat[0], int) and not isinstance(flat[0], bool)
            else "BOOL" if flat and isinstance(flat[0], bool)
            else "BYTES" if flat and isinstance(flat[0], str) else "FP32")
        output = InferOutput("output-0", shape, datatype, flat)
        return InferResponse(payload.id or generate_uuid(), model_name, [output])
    return {"predictions": _tolist(result)}


def configure_logging(log_config=None):
    if not logger.handlers:
        handler = _logging.StreamHandler()
        handler.setFormatter(_logging.Formatter(
            "%(asctime)s.%(msecs)03d %(process)s %(name)s %(levelname)s %(message)s",
            "%Y-%m-%d %H:%M:%S"))
        logger.addHandler(handler)
        logger.setLevel(_logging.INFO)
        logger.propagate = False


# -- install ------------------------------------------------------------------------------------

_PROVIDED = {
    "kserve": ("Model", "ModelServer", "InferRequest", "InferInput", "InferResponse",
               "InferOutput", "ModelRepository", "__version__"),
    "kserve.model": ("Model", "BaseKServeModel", "InferenceModel", "InferenceVerb",
                     "PredictorProtocol"),
    "kserve.model_server": ("ModelServer", "parser", "args", "app"),
    "kserve.model_repository": ("ModelRepository",),
    "kserve.errors": ("InvalidInput", "InferenceError", "ModelNotFound", "ModelNotReady",
                      "ModelMissingError", "UnsupportedProtocol", "ServerNotReady",
                      "ServerNotLive", "NoModelReady"),
    "kserve.protocol": (),
    "kserve.protocol.infer_type": ("InferRequest", "InferInput", "InferResponse",
                                   "InferOutput", "RequestedOutput"),
    "kserve.logging": ("logger", "trace_logger", "configure_logging"),
    "kserve.utils": (),
    "kserve.utils.utils": ("generate_uuid", "strtobool", "get_predict_input",
                           "get_predict_response", "from_np_dtype", "to_np_dtype"),
    "kserve.constants": (),
    "kserve.constants.constants": ("PredictorProtocol",),
}


class _Missing(importlib.abc.MetaPathFinder):
    """A kserve module this stand-in does not hold: an import error that names kserve."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("kserve.") and fullname not in sys.modules:
            raise ModuleNotFoundError(
                "No module named '%s': this image has no kserve package, and fairing4j's"
                " kserve.Model server provides only %s; add kserve to the image's requirements"
                % (fullname, ", ".join(sorted(m for m in _PROVIDED if m != "kserve"))),
                name=fullname)
        return None


def install(serve):
    """Puts this module tree in sys.modules as kserve; serve(models) serves them. The kserve
    module."""
    global _serve
    _serve = serve
    this = sys.modules[__name__]
    modules = {}
    for name, names in _PROVIDED.items():
        module = types.ModuleType(name, "fairing4j's stand-in for %s" % name)
        module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        module.__path__ = []
        for attribute in names:
            setattr(module, attribute, getattr(this, attribute))
        modules[name] = module
        sys.modules[name] = module
    for name, module in modules.items():
        if "." in name:
            parent, _, child = name.rpartition(".")
            setattr(modules[parent], child, module)
    modules["kserve"].errors = modules["kserve.errors"]
    modules["kserve"].logging = modules["kserve.logging"]
    modules["kserve"].constants = modules["kserve.constants.constants"]
    modules["kserve"].utils = modules["kserve.utils.utils"]
    modules["kserve.utils"].utils = modules["kserve.utils.utils"]
    modules["kserve.constants"].constants = modules["kserve.constants.constants"]
    modules["kserve"]._fairing4j_served = False
    modules["kserve"].InferenceVerb = InferenceVerb
    sys.meta_path.append(_Missing())
    return modules["kserve"]
