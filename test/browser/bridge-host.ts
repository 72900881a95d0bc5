// A stand-in for the console's plugin-page screen, bundled for the browser by bridge.test.ts:
// frames `?src=` in `<iframe sandbox="allow-scripts">` and serves it `window.svc` for `?slug=`.
// The actions it is asked to run are kept in `window.bridgeActions` for the test to read.
import { attachBridge } from "../../src/web/bridge/host.ts";

declare global {
  interface Window {
    bridgeActions: unknown[][];
  }
}

const params = new URLSearchParams(location.search);
const actions: unknown[][] = [];
window.bridgeActions = actions;
const frame = document.createElement("iframe");
frame.setAttribute("sandbox", "allow-scripts");
frame.title = "plugin page";
frame.style.width = "900px";
frame.style.height = "700px";
// Attached before the frame exists in the document: no message can come before the listener.
attachBridge(frame, params.get("slug") ?? "", {
  copy: (text) => {
    actions.push(["copy", text]);
  },
  toast: (message, variant) => actions.push(["toast", message, variant]),
  navigate: (to) => actions.push(["navigate", to]),
});
frame.src = params.get("src") ?? "";
document.body.append(frame);
