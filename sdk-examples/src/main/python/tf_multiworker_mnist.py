"""FashionMNIST with Keras and tf.distribute.MultiWorkerMirroredStrategy, as one replica of a TFJob.

The Kubeflow operator (or fairing4j's local cluster) injects TF_CONFIG, e.g.
{"cluster": {"chief": ["job-chief-0:2222"], "worker": ["job-worker-0:2222", ...]},
 "task": {"type": "worker", "index": 0}}; the strategy reads it to find its peers and its rank.
Reads the IDX .gz files itself (no download) from --data-dir. Only the chief keeps the saved
model; the other workers save to a temporary directory, as the strategy requires every worker to
take part in saving.
"""
import argparse
import gzip
import json
import os
import struct
import tempfile

import numpy as np
import tensorflow as tf


def read_idx(path):
    """Parses an IDX file (gzip-compressed) into a uint8 array."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def dataset(data_dir, samples, global_batch):
    images = read_idx(os.path.join(data_dir, "train-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, "train-labels-idx1-ubyte.gz"))
    if samples:
        images, labels = images[:samples], labels[:samples]
    x = (images.astype("float32") / 255.0)[..., np.newaxis]
    return (tf.data.Dataset.from_tensor_slices((x, labels.astype("int64")))
            .shuffle(len(x), seed=1).repeat().batch(global_batch))


def model():
    return tf.keras.Sequential([
        tf.keras.layers.Input(shape=(28, 28, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(10),
    ])


def is_chief(task):
    # With a chief in the cluster it saves; without one, worker 0 does.
    return task.get("type") == "chief" or (task.get("type") == "worker" and task.get("index") == 0
                                          and "chief" not in CLUSTER)


def main():
    parser = argparse.ArgumentParser(description="FashionMNIST Keras MultiWorkerMirroredStrategy")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64, help="per replica")
    parser.add_argument("--samples", type=int, default=0, help="train on the first N (0 = all)")
    parser.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--model-dir", default="/train/models")
    args = parser.parse_args()

    task = TF_CONFIG.get("task", {})
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    print("TF_CONFIG task {}:{} of {} replicas".format(
        task.get("type"), task.get("index"), strategy.num_replicas_in_sync), flush=True)

    global_batch = args.batch_size * strategy.num_replicas_in_sync
    samples = args.samples or 60000
    steps = max(1, samples // global_batch)
    with strategy.scope():
        net = model()
        net.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.01, momentum=0.5),
                    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                    metrics=["accuracy"])
    history = net.fit(dataset(args.data_dir, args.samples, global_batch), epochs=args.epochs,
                      steps_per_epoch=steps, verbose=2)
    print("accuracy={:.4f}".format(history.history["accuracy"][-1]), flush=True)

    target = args.model_dir if is_chief(task) else tempfile.mkdtemp()
    os.makedirs(target, exist_ok=True)
    net.save(os.path.join(target, "model.keras"))
    if is_chief(task):
        print("saved model to " + os.path.join(target, "model.keras"), flush=True)


TF_CONFIG = json.loads(os.environ.get("TF_CONFIG", "{}"))
CLUSTER = TF_CONFIG.get("cluster", {})

if __name__ == "__main__":
    main()
