/* Execution Primitive Lab: the site search's worker, run in a hidden frame when the site is opened
 * from disk (file://).
 *
 * Material's search sends its index and each query to a Web Worker and reads the replies; browsers
 * refuse `new Worker()` for a file:// script, so from disk the search would never answer. A frame
 * made by this page shares its origin, runs the same worker script and speaks the same postMessage
 * protocol, which is all the search asks of a worker. Material's offline plugin would load a shim
 * for this from a CDN; the site must work with no network, so mkdocs.yml lists this one instead (its
 * name holds "iframe-worker", which is how the plugin sees that a shim is already there).
 * Over http(s) it does nothing: real workers run there.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:" || typeof EventTarget !== "function") {
    return;
  }

  // Load classic scripts into the frame in order: the worker's importScripts (other languages'
  // stemmers), awaited by the worker code as a promise.
  function loadScripts(frameWindow, urls) {
    return urls.reduce(function (done, url) {
      return done.then(function () {
        return new Promise(function (resolve, reject) {
          var script = frameWindow.document.createElement("script");
          script.src = new URL(url, document.baseURI).href;
          script.onload = function () { resolve(); };
          script.onerror = function () { reject(new Error("cannot load " + url)); };
          frameWindow.document.head.appendChild(script);
        });
      });
    }, Promise.resolve());
  }

  class FrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this.queued = [];  // messages posted before the worker script has run
      this.ready = false;
      this.frame = document.createElement("iframe");
      this.frame.hidden = true;
      this.frame.tabIndex = -1;
      this.frame.setAttribute("aria-hidden", "true");
      this.frame.title = "search worker";
      (document.body || document.documentElement).appendChild(this.frame);
      var inner = this.frame.contentWindow;
      var self = this;
      // The worker's replies come to this object's listeners, a task later as a worker's would.
      inner.postMessage = function (data) {
        setTimeout(function () { self.emit(data); }, 0);
      };
      inner.importScripts = function () {
        return loadScripts(inner, Array.prototype.slice.call(arguments));
      };
      loadScripts(inner, [url]).then(function () {
        self.ready = true;
        self.queued.splice(0).forEach(function (data) { self.deliver(data); });
      }, function (error) {
        var event = new ErrorEvent("error", { message: String(error) });
        if (self.onerror) { self.onerror(event); }
        self.dispatchEvent(event);
      });
    }

    postMessage(data) {
      if (this.ready) {
        this.deliver(data);
      } else {
        this.queued.push(data);
      }
    }

    // Into the frame as a copy made in its own realm, as a worker would receive it.
    deliver(data) {
      var inner = this.frame.contentWindow;
      var copy = inner.structuredClone(data);
      setTimeout(function () { inner.dispatchEvent(new inner.MessageEvent("message", { data: copy })); }, 0);
    }

    emit(data) {
      var event = new MessageEvent("message", { data: structuredClone(data) });
      if (this.onmessage) { this.onmessage(event); }
      this.dispatchEvent(event);
    }

    terminate() {
      this.frame.remove();
    }
  }

  window.Worker = FrameWorker;
})();
