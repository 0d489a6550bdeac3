#!/usr/bin/env bash
# Installs what the OpenID Connect relying-party tests need, as `make deps` does for the rest:
# Debian's apache2 and libapache2-mod-auth-openidc (apt-get, as root; the package's own service
# is not needed: scripts/oidc/apache-rp.sh runs Apache from a folder of its own), and PyPI's
# authlib, requests and oidc-provider-mock.
#
#   scripts/oidc/deps.sh        install what is missing (nothing when all is there)
set -euo pipefail
apt_packages=(apache2 libapache2-mod-auth-openidc)
py_modules=(authlib:authlib requests:requests oidc_provider_mock:oidc-provider-mock)

missing=()
for p in "${apt_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
    [[ $(id -u) -eq 0 ]] || { echo "missing Debian packages (${missing[*]}) and this is not root" >&2; exit 1; }
    echo "installing: ${missing[*]}"
    # Debian starts a package's service on install unless policy-rc.d says no: the tests never use
    # the system Apache, so it is kept from starting (and from taking port 80).
    policy=/usr/sbin/policy-rc.d
    created=""
    if [[ ! -e $policy ]]; then printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && created=1; fi
    trap '[[ -n $created ]] && rm -f "$policy"' EXIT
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for entry in "${py_modules[@]}"; do
    module=${entry%%:*} package=${entry#*:}
    python3 -c "import $module" 2>/dev/null && continue
    echo "installing: $package (PyPI)"
    python3 -m pip install -q --disable-pip-version-check "$package" 2>/dev/null \
        || python3 -m pip install -q --disable-pip-version-check --break-system-packages "$package"
done
