// Runs the official Kubernetes JavaScript client's informer on configmaps in
// every namespace against the cluster of $KUBECONFIG (the kubeconfig used as
// written), and prints its cache on stdout after every change, one line
//
//   STATE ["ns/name@resourceVersion", ...]   (sorted)
//
// (so the listed state, then one line per event the watch brought), and
// every error the informer reports on stderr as "ERROR <message>",
// restarting it as an application would.
//
//   node informer.mjs CLIENT_NODE_DIR
//
// CLIENT_NODE_DIR holds node_modules/@kubernetes/client-node
// (e2e/install-client-node.sh prints it).
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node informer.mjs CLIENT_NODE_DIR');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(dir), 'package.json'));
const k8s = await import(pathToFileURL(require.resolve('@kubernetes/client-node')).href);

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
const informer = k8s.makeInformer(kc, '/api/v1/configmaps', () => core.listConfigMapForAllNamespaces());

function report() {
  const state = informer
    .list()
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`)
    .sort();
  console.log('STATE ' + JSON.stringify(state));
}
informer.on(k8s.ADD, report);
informer.on(k8s.UPDATE, report);
informer.on(k8s.DELETE, report);
informer.on(k8s.CONNECT, () => console.error('CONNECT'));
informer.on(k8s.ERROR, (err) => {
  console.error('ERROR ' + (err && (err.message || err.body || err)));
  setTimeout(() => informer.start().catch((e) => console.error('ERROR ' + e.message)), 500);
});
await informer.start();
report();
