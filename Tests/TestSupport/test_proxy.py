"""A plain HTTP proxy for the tests (absolute-form GET only, no CONNECT): forwards each request as
it came, answers with what the server answered (redirects included, never followed), and lists the
URLs it forwarded at GET /requests. Prints its port, serves until its stdin closes."""
import http.client
import http.server
import socketserver
import sys
import threading
import urllib.parse

forwarded = []


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if not self.path.startswith("http://"):  # the tests' question: what went through
            return self.answer(200, "".join(url + "\n" for url in forwarded).encode())
        forwarded.append(self.path)
        target = urllib.parse.urlsplit(self.path)
        connection = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=30)
        headers = {name: value for name, value in self.headers.items()
                   if name.lower() not in ("proxy-connection", "connection", "host")}
        headers["Host"] = target.netloc
        connection.request("GET", (target.path or "/") + ("?" + target.query if target.query else ""), headers=headers)
        answer = connection.getresponse()
        body = answer.read()
        kept = [(name, value) for name, value in answer.getheaders()
                if name.lower() not in ("transfer-encoding", "connection", "content-length")]
        self.answer(answer.status, body, kept)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
