"""Writes an LSP session for an MLIR language server to stdout, each message
framed with its Content-Length header: initialize, initialized, didOpen of
the given .mlir file, shutdown, exit."""

import json
import pathlib
import sys


def frame(message):
    body = json.dumps(message)
    return f"Content-Length: {len(body.encode())}\r\n\r\n{body}"


def main():
    path = pathlib.Path(sys.argv[1]).resolve()
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": path.as_uri(),
                                     "languageId": "mlir", "version": 1,
                                     "text": path.read_text()}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    sys.stdout.write("".join(frame(m) for m in messages))


if __name__ == "__main__":
    main()
