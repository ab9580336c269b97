"""octoDNS's own reading of a `dnscron export --to octodns` folder, as JSON on stdout.

Run from the exported folder (the provider's `directory` is relative to the working
directory, as octoDNS reads it): for each zone of its config.yaml, the YAML provider the
configuration names loads the zone as octoDNS's manager would (lenient off, its
`enforce_order` on), and every record is printed as [name, ttl, type, content], content in the
API's form: TXT as the text a raw-text provider receives (`to_raw_text`), every other type in
presentation form. tests/recorders/export.sh records it; tests/it/export/differential.rs
compares it with the files' records."""

import json
import logging
import sys
import warnings

import octodns
from octodns.provider import yaml as yaml_module
from octodns.yaml import safe_load
from octodns.zone import Zone


def provider(name, config):
    options = {k: v for k, v in config.items() if k != 'class'}
    klass = config['class'].rsplit('.', 1)[-1]
    return getattr(yaml_module, klass)(name, **options)


def rows(zone):
    out = []
    for record in zone.records:
        if record._type == 'TXT':
            contents = [value.to_raw_text() for value in record.values]
        else:
            contents = record.rrs[3]
        for content in contents:
            out.append([record.name or '@', record.ttl, record._type, content])
    return sorted(out)


def main():
    logging.disable(logging.WARNING)
    warnings.simplefilter('ignore')
    with open('config.yaml') as fh:
        config = safe_load(fh, enforce_order=False)
    zones = {}
    for name, zone_config in config['zones'].items():
        zone = Zone(name, [])
        for source in zone_config['sources']:
            provider(source, config['providers'][source]).populate(zone)
        zones[name] = rows(zone)
    lines = ['{', f' "octodns": {json.dumps(octodns.__version__)},', ' "zones": {']
    for i, (name, records) in enumerate(zones.items()):
        end = ',' if i + 1 < len(zones) else ''
        if records:
            lines.append(f'  {json.dumps(name)}: [')
            lines.append(',\n'.join(f'   {json.dumps(row)}' for row in records))
            lines.append(f'  ]{end}')
        else:
            lines.append(f'  {json.dumps(name)}: []{end}')
    lines.append(' }')
    lines.append('}')
    sys.stdout.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
