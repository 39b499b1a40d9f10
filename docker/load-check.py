#!/usr/bin/env python3
"""Starts storefront orders at a steady rate through one or more gateways, runs a fault command part way (e.g. a
`docker kill`), then waits for every accepted order to end and reports what was lost.

  docker/load-check.py --gateways http://localhost:8080,http://localhost:8090 --rate 2 --seconds 90 \
      --fault-at 30 --fault 'docker kill orderflow-cluster-kafka-2-1'

Each start carries an Idempotency-Key and is sent again with it on an error or a 5xx, so a start that was accepted
while its reply was lost is not counted twice. Exit status 0 when every started order completed.
Standard library only (Python 3.8+)."""
import argparse, json, subprocess, sys, threading, time, urllib.error, urllib.request, uuid

def call(method, url, body=None, headers=None, timeout=30):
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={'content-type': 'application/json', **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b'null')
    except urllib.error.HTTPError as e:
        return e.code, None
    except Exception:
        return 0, None

def main():
    p = argparse.ArgumentParser()
    p.add_argument('--gateways', default='http://localhost:8080')
    p.add_argument('--rate', type=float, default=2.0, help='orders started per second')
    p.add_argument('--seconds', type=float, default=60)
    p.add_argument('--fault-at', type=float, default=None, help='seconds after the first start')
    p.add_argument('--fault', default=None, help='shell command run at --fault-at')
    p.add_argument('--settle', type=float, default=300, help='seconds to wait for the orders to end')
    a = p.parse_args()
    gateways = a.gateways.split(',')
    started, lock, t0 = {}, threading.Lock(), time.time()
    retried, failures, fault_at, waits = [0], [], [None], []

    def start(i):
        key = str(uuid.uuid4())
        body = {'flowId': 'storefront_order', 'input': {'type': 'storefront_order', 'customerId': f'cus_load_{i}',
                'currency': 'USD', 'lines': [{'sku': 'TSHIRT-RED-M', 'name': 'T-shirt', 'qty': 1, 'unitPrice': 19.5}],
                'meta': {'shipTo': '1 Main Street'}}}
        sent = time.time()
        for attempt in range(60):
            status, reply = call('POST', gateways[(i + attempt) % len(gateways)] + '/api/v1/orders', body,
                                 {'Idempotency-Key': key})
            if status in (200, 201) and reply and reply.get('orderId'):
                with lock:
                    started[reply['orderId']] = sent
                    waits.append(time.time() - sent)
                return
            with lock:
                retried[0] += 1
                failures.append((time.time(), status))
            time.sleep(1)
        print(f'start {i} never accepted', file=sys.stderr)

    if a.fault:
        def fault():
            time.sleep(a.fault_at or 0)
            fault_at[0] = time.time()
            print(f'{time.time() - t0:6.1f}s fault: {a.fault}', flush=True)
            subprocess.run(a.fault, shell=True)
        threading.Thread(target=fault, daemon=True).start()
    threads, n = [], int(a.rate * a.seconds)
    for i in range(n):
        time.sleep(max(0, t0 + i / a.rate - time.time()))
        t = threading.Thread(target=start, args=(i,))
        t.start(); threads.append(t)
    for t in threads:
        t.join()
    print(f'{time.time() - t0:6.1f}s started {len(started)} of {n} ({retried[0]} starts sent again); '
          f'slowest first send to accepted {max(waits, default=0):.1f} s', flush=True)
    if failures:
        ref = fault_at[0] or t0
        codes = sorted({c for _, c in failures})
        print(f'        refused or unanswered starts (status {codes}, 0 = no answer) from '
              f'{failures[0][0] - ref:.1f} s to {max(f for f, _ in failures) - ref:.1f} s after the fault', flush=True)

    ended, deadline = {}, time.time() + a.settle
    while len(ended) < len(started) and time.time() < deadline:
        for oid in [o for o in started if o not in ended]:
            status, order = call('GET', gateways[0] + f'/api/v1/orders/{oid}')
            if status == 200 and order and order.get('status') in ('completed', 'failed', 'declined', 'cancelled'):
                ended[oid] = (order['status'],
                              max(e['at'] for e in order['timeline']) / 1000 - started[oid])
        time.sleep(2)
    completed = [s for s, _ in ended.values() if s == 'completed']
    slowest = max((d for _, d in ended.values()), default=0)
    print(f'{time.time() - t0:6.1f}s ended {len(ended)} of {len(started)}: completed {len(completed)}, '
          f'other {len(ended) - len(completed)}, not ended {len(started) - len(ended)}; '
          f'slowest start to end {slowest:.1f} s')
    sys.exit(0 if len(completed) == len(started) == n else 1)

if __name__ == '__main__':
    main()
