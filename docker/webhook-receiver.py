#!/usr/bin/env python3
"""A webhook receiver for trying the compose stack: saves each POST (headers and body) as /hook/got/<n>.json.
Deliveries go to https or localhost only, so it runs in the dispatcher's network namespace, as in the README:
  docker run -d --network container:orderflow-webhook-dispatcher-1 -v /tmp/hook:/hook/got \
    -v $PWD/docker/webhook-receiver.py:/opt/webhook-receiver.py:ro orderflow/debian:trixie bash -c \
    "apt-get update -qq && apt-get install -y -qq python3-minimal && python3 /opt/webhook-receiver.py"
then subscribe http://localhost:9000/hook (docker/compose-smoke.sh does all of it)."""
import http.server, json, os
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('content-length', 0)))
        n = len(os.listdir('/hook/got'))
        with open(f'/hook/got/{n}.json', 'w') as f:
            json.dump({'headers': dict(self.headers), 'body': body.decode()}, f)
        self.send_response(200); self.end_headers()
os.makedirs('/hook/got', exist_ok=True)
http.server.HTTPServer(('127.0.0.1', 9000), H).serve_forever()
