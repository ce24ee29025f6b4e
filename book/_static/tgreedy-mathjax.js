// Loaded before MathJax and the widget manager (book/conf.py gives it priority 200).
// The ipywidgets HTML manager typesets with the MathJax 2 call MathJax.Hub.Queue(["Typeset", MathJax.Hub, el]);
// MathJax 3 has no Hub. Whatever object window.MathJax becomes (the configuration Sphinx and MyST-NB
// write, then MathJax 3 itself), it gets a Hub whose Queue forwards to MathJax 3's typesetPromise.
(function () {
  var current;
  function queue(job) {
    var mj = window.MathJax;
    if (mj && typeof mj.typesetPromise === "function") {
      var el = Array.isArray(job) ? job[2] : undefined;
      mj.typesetPromise(el ? [el] : undefined).catch(function (err) { console.warn("MathJax:", err); });
    }
    // Before MathJax 3 has started, its first typeset of the page will include the element.
  }
  function withHub(obj) {
    if (obj && typeof obj === "object" && !Object.prototype.hasOwnProperty.call(obj, "Hub")) {
      Object.defineProperty(obj, "Hub", { value: { Queue: queue }, enumerable: false, configurable: true });
    }
    return obj;
  }
  Object.defineProperty(window, "MathJax", {
    configurable: true, enumerable: true,
    get: function () { return current; },
    set: function (value) { current = withHub(value); }
  });
})();
