# shellcheck shell=sh
# Sets py to the first Python that has jsonschema, else python3: python3
# on PATH may be another installation than the Debian one that
# scripts/install-deps.sh gives python3-jsonschema to.  Sourced by the
# tests that validate JSON against the schemas in docs/.
py=python3
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then
		py=$p
		break
	fi
done
