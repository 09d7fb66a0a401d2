import json,sys,glob,os,statistics
# usage: summ.py DIR  -> rows per round/build/preset
root=sys.argv[1]
rows={}
for f in sorted(glob.glob(root+'/r*/*/*/*.json')):
    parts=f[len(root)+1:].split('/')
    r,build,preset=parts[0],parts[1],parts[2]
    rep=json.load(open(f))
    for res in rep['results']:
        n=res['n']; a=res.get('audit',{})
        cpu=res.get('creationCpuSeconds',{}).get('operator',0)
        c=res['creation']
        rows.setdefault((preset,build),[]).append((r,res['completionSeconds'],res['allSeconds'],a.get('objectsSeconds',0),a.get('feStatefulSetSeconds',0),a.get('servicesSeconds',0),a.get('statusSeconds',0),1000*cpu/n,c['writes']/n,c['conflicts'],res['steady']['total'],res.get('error','')))
hdr="round completion every+status | audit: objects FE-STS services status | cpu-ms/cluster writes/cluster 409 steady"
for (p,b),rs in sorted(rows.items()):
    print(f"## {p} {b}   ({hdr})")
    for x in rs:
        print("  %s  %.2f %.2f | %.2f %.2f %.2f %.2f | %.2f %.2f %d %d %s"%x)
    med=[statistics.median([x[i] for x in rs]) for i in range(1,11)]
    print("  med %.2f %.2f | %.2f %.2f %.2f %.2f | %.2f %.2f %d %d"%tuple(med))
