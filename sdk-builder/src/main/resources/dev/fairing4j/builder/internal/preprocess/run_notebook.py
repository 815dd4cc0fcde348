"""Runs a Jupyter notebook as it is and keeps the executed copy (fairing4j's full-notebook mode).

    python -u run_notebook.py INPUT.ipynb OUTPUT.ipynb [-k KERNEL] [-p NAME VALUE]...

With papermill in the image it runs papermill, as before. Without it, nbclient (what papermill
itself drives; Debian's python3-nbclient) executes the cells in the notebook's directory, with the
parameters injected as papermill does (a cell tagged "injected-parameters" after the one tagged
"parameters"), streams each cell's output to this process's output (so the job's log shows it
and metrics can be read from it), and writes the executed notebook even when a cell fails.
"""
import argparse
import os
import re
import sys
import uuid
import warnings

import nbformat


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(text):
    """IPython colours its tracebacks for a terminal: a log and an exception message want text."""
    return ANSI.sub("", text or "")


def report(notebook, error):
    """Which cell failed and why, without the colour codes and without echoing the cell's source
    (nbclient's message repeats it, and its assignments read as metrics in the log)."""
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                lines = ["cell {} failed: {}: {}".format(index + 1, output.get("ename"),
                                                        plain(output.get("evalue")))]
                for frame in output.get("traceback", []):
                    lines.extend(line for line in plain(frame).splitlines() if line.strip())
                return "\n".join(lines)
    return "a cell failed: {}: {}".format(getattr(error, "ename", None) or type(error).__name__,
                                          plain(getattr(error, "evalue", None) or str(error)))


def typed(value):
    """papermill's reading of -p values: int, float, bool, None, else the string."""
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return {"True": True, "False": False, "None": None}.get(value, value)


def inject(notebook, parameters):
    source = "# Parameters\n" + "".join(
        "{} = {!r}\n".format(name, value) for name, value in parameters.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    cells = notebook.cells
    tagged = [i for i, c in enumerate(cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
    cells.insert(tagged[-1] + 1 if tagged else 0, cell)


def main():
    parser = argparse.ArgumentParser(description="run a notebook as it is")
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("-k", "--kernel")
    parser.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                        metavar=("NAME", "VALUE"))
    args = parser.parse_args()
    parameters = {name: typed(value) for name, value in args.parameter}
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    try:
        import papermill
    except ImportError:
        papermill = None
    if papermill is not None:
        print("running {} with papermill".format(args.input), flush=True)
        papermill.execute_notebook(args.input, args.output, parameters=parameters,
                                   kernel_name=args.kernel, log_output=True)
        return 0

    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    class StreamingClient(NotebookClient):
        """Echoes what the cells print as it arrives, as papermill --log-output does."""

        def output(self, outs, msg, display_id, cell_index):
            out = super().output(outs, msg, display_id, cell_index)
            if msg["msg_type"] == "stream":
                target = sys.stderr if msg["content"].get("name") == "stderr" else sys.stdout
                target.write(msg["content"].get("text", ""))
                target.flush()
            return out

    with warnings.catch_warnings():
        # Cells without ids (older editors) are given ones below, as nbformat would.
        warnings.simplefilter("ignore")
        notebook = nbformat.read(args.input, as_version=4)
    if notebook.get("nbformat_minor", 0) >= 5:
        for cell in notebook.cells:
            cell.setdefault("id", uuid.uuid4().hex[:8])
    # ipykernel's debugger warns about frozen modules on every start: noise in the job's log.
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    if parameters:
        inject(notebook, parameters)
    kernel = args.kernel or notebook.metadata.get("kernelspec", {}).get("name") or "python3"
    print("running {} with nbclient, kernel {}".format(args.input, kernel), flush=True)
    client = StreamingClient(notebook, kernel_name=kernel, timeout=None,
                             resources={"metadata": {"path": os.path.dirname(
                                 os.path.abspath(args.input))}})
    status = 0
    try:
        client.execute()
    except CellExecutionError as error:
        print(report(notebook, error), file=sys.stderr, flush=True)
        status = 1
    finally:
        nbformat.write(notebook, args.output)
        print("executed notebook written to {}".format(args.output), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
