/// The one script of the hosted pages, served from the server's own origin (`script-src 'self'`):
/// the "Sign in with a passkey" button of the login page and the passkey button of the second
/// step. It shows the button only where the browser has WebAuthn; a click posts the page's hidden
/// fields (CSRF token, and the second step's token) to the options URL the button names, asks
/// `navigator.credentials.get()` with the options, and posts the answer (WebAuthn's JSON
/// serialization, binary members as base64url) with the page's passkey form. Without script the
/// pages work as before: passwords and codes need none.
public enum PasskeyScript {
    /// Where the server serves it.
    public static let path = "/oauth/passkey.js"

    /// The script (no third-party code; a few lines of the browser's own APIs).
    public static let source = #"""
        "use strict";
        (() => {
          const button = document.getElementById("passkey");
          const form = document.getElementById("passkey-form");
          const problem = document.getElementById("passkey-problem");
          if (!button || !form || !problem || !window.PublicKeyCredential || !navigator.credentials) return;
          const bytes = (s) =>
            Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
          const text = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
          button.hidden = false;
          button.addEventListener("click", async () => {
            problem.hidden = true;
            button.disabled = true;
            try {
              const fields = new URLSearchParams();
              for (const input of form.querySelectorAll("input[type=hidden]")) {
                if (input.name !== "passkey") fields.append(input.name, input.value);
              }
              const answer = await fetch(button.dataset.options, { method: "POST", body: fields, credentials: "same-origin" });
              if (!answer.ok) throw new Error("the server did not start it (" + answer.status + ")");
              const options = (await answer.json()).publicKey;
              options.challenge = bytes(options.challenge);
              options.allowCredentials = (options.allowCredentials || []).map((c) => ({ type: c.type, id: bytes(c.id) }));
              const credential = await navigator.credentials.get({ publicKey: options });
              const r = credential.response;
              form.elements.passkey.value = JSON.stringify({
                id: credential.id, rawId: text(credential.rawId), type: credential.type,
                response: {
                  clientDataJSON: text(r.clientDataJSON), authenticatorData: text(r.authenticatorData),
                  signature: text(r.signature), userHandle: r.userHandle ? text(r.userHandle) : null,
                },
                clientExtensionResults: credential.getClientExtensionResults(),
              });
              form.submit();
            } catch (e) {
              problem.textContent = "No passkey was used: " + (e && e.message ? e.message : String(e));
              problem.hidden = false;
              button.disabled = false;
            }
          });
        })();
        """#
}
