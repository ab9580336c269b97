"""octoDNS's own answer for one case of the `import --from octodns` tests, as JSON on stdout.

For each zone of the configuration CASE/config.yaml (run from the corpus folder, where its
`directory:` paths are relative), octoDNS 1.22's YamlProvider loads the desired zone, and its
planner, `Zone.changes`, compares it with the live zone for the zone's (first) target:

- live: CASE/live/<zone>.yaml when it exists (a YAML provider holding what the old provider
  serves), else what octoDNS would have pushed into an empty zone (its own plan, applied);
- target: a provider named as the zone's first target, supporting the types the Hosting
  Customer API holds (a name of none when the zone lists no targets);
- changes: what octoDNS would do, one line per RRset;
- after: the live zone with those changes applied (`Zone.apply`).

Records are written in the API's content form: TXT as the text a raw-text provider receives
(`to_raw_text`), every other type in presentation form. tests/recorders/octodns.sh writes this
next to the case as CASE/octodns.json; tests/it/import/octodns_differential.rs reads it, and,
with the cargo feature `live-tools`, runs this script again and fails when the recording is
stale."""

import json
import logging
import os
import sys
import warnings

import octodns
from octodns.provider.yaml import YamlProvider
from octodns.yaml import safe_load
from octodns.zone import Zone

# The types the API holds (its description's list).
API_TYPES = ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'PTR')
PROVIDER_CLASSES = ('YamlProvider', 'SplitYamlProvider')


class Target:
    '''The provider dnscron replaces, as `Zone.changes` asks about it.'''

    SUPPORTS_GEO = False
    SUPPORTS_DYNAMIC = False

    def __init__(self, id):
        self.id = id

    def supports(self, record):
        return record._type in API_TYPES


def provider(name, config):
    options = {k: v for k, v in config.items() if k != 'class'}
    klass = config['class'].rsplit('.', 1)[-1]
    if klass not in PROVIDER_CLASSES:
        raise SystemExit(f'{name}: not a YAML provider')
    from octodns.provider import yaml as yaml_module

    return getattr(yaml_module, klass)(name, **options)


def rows(zone):
    out = []
    for record in sorted(zone.records, key=lambda r: (r.name, r._type)):
        if record._type in ('TXT', 'SPF'):
            contents = [value.to_raw_text() for value in record.values]
        else:
            contents = record.rrs[3]
        for content in sorted(contents):
            out.append([record.name or '@', record.ttl, record._type, content])
    return out


def changes_of(changes):
    out = []
    for change in changes:
        record = change.new or change.existing
        out.append([change.__class__.__name__, record.name or '@', record._type])
    return sorted(out, key=lambda c: (c[1], c[2], c[0]))


def plan_zone(case, config, zone_name):
    zone_config = config['zones'][zone_name]
    aliased = zone_config.get('alias', zone_name)
    records_from = config['zones'][aliased]
    populated = Zone(aliased, [])
    for source in records_from['sources']:
        provider(source, config['providers'][source]).populate(populated)
    # An alias zone gets the records of the zone it names, as octoDNS's manager copies them.
    desired = Zone(zone_name, [])
    for record in populated.records:
        desired.add_record(record.copy(zone=desired), lenient=True)
    targets = records_from.get('targets') or []
    target = Target(targets[0] if targets else '(no target)')
    live_dir = os.path.join(case, 'live')
    live = Zone(zone_name, [])
    if os.path.isfile(os.path.join(live_dir, f'{zone_name}yaml')):
        YamlProvider(
            'live', live_dir, default_ttl=300, escaped_semicolons=True
        ).populate(live)
    else:
        live.apply(Zone(zone_name, []).changes(desired, target))
    before = rows(live)
    changes = live.changes(desired, target)
    live.apply(changes)
    return {
        'target': target.id,
        'live': before,
        'changes': changes_of(changes),
        'after': rows(live),
    }


def main(case):
    logging.disable(logging.WARNING)
    warnings.simplefilter('ignore')
    with open(os.path.join(case, 'config.yaml')) as fh:
        config = safe_load(fh, enforce_order=False)
    answer = {
        'octodns': octodns.__version__,
        'zones': {
            name: plan_zone(case, config, name) for name in config['zones']
        },
    }
    sys.stdout.write(as_json(answer))


def as_json(answer):
    '''One row a line, so a stale recording's diff reads as the records that moved.'''
    lines = ['{', f' "octodns": {json.dumps(answer["octodns"])},', ' "zones": {']
    zones = list(answer['zones'].items())
    for i, (name, zone) in enumerate(zones):
        lines.append(f'  {json.dumps(name)}: {{')
        lines.append(f'   "target": {json.dumps(zone["target"])},')
        keys = ['live', 'changes', 'after']
        for j, key in enumerate(keys):
            items = [f'    {json.dumps(row)}' for row in zone[key]]
            end = ',' if j + 1 < len(keys) else ''
            if items:
                lines.append(f'   "{key}": [')
                lines.append(',\n'.join(items))
                lines.append(f'   ]{end}')
            else:
                lines.append(f'   "{key}": []{end}')
        lines.append('  }' + (',' if i + 1 < len(zones) else ''))
    lines.append(' }')
    lines.append('}')
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    main(sys.argv[1])
