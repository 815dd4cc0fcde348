#!/usr/bin/env python3
"""Counts the public types of the SDK jars (javap -public) and lists every public signature that
names an internal type; ArchitectureTest enforces the second in the test suite, this shows both on
built jars. Usage (after mvn package):
  python3 scripts/public-api.py sdk-core/target/sdk-core-*-SNAPSHOT.jar \
      sdk-builder/target/sdk-builder-*-SNAPSHOT.jar sdk-deployer/target/sdk-deployer-*-SNAPSHOT.jar
"""
import subprocess, sys, zipfile, re, collections
pub=[];leaks=collections.defaultdict(list);members=collections.defaultdict(list)
for j in sys.argv[1:]:
    names=[n[:-6].replace('/','.') for n in zipfile.ZipFile(j).namelist() if n.endswith('.class') and n.startswith('dev/')]
    names=[n for n in names if '.internal.' not in n and 'module-info' not in n]
    out=subprocess.run(['javap','-public','-cp',j]+names,capture_output=True,text=True).stdout
    cur=None
    for line in out.splitlines():
        m=re.match(r'^(?:public |protected |private )?.*?\b(class|interface|enum|record|@interface) ([\w.$]+)',line)
        if m and not line.startswith(' '):
            cur=m.group(2) if line.startswith('public ') else None
            if cur:
                pub.append(cur)
                if '.internal.' in line: leaks[cur].append(line.strip())
        elif cur and line.strip() not in ('}',''):
            members[cur].append(line.strip())
            if '.internal.' in line: leaks[cur].append(line.strip())
print("public types:",len(pub), collections.Counter(p.split('.')[2] for p in pub))
print("public types naming internals:",len(leaks), "signatures:",sum(len(v) for v in leaks.values()))
for k,v in sorted(leaks.items()):
    print(k)
    for s in v: print("   ",s[:230])
