import json,sys,glob,statistics
root=sys.argv[1]
rows={}
for f in sorted(glob.glob(root+'/r*/*/*/*.json')):
    r,v,p=f[len(root)+1:].split('/')[:3]
    res=json.load(open(f))['results'][0]; a=res.get('audit',{})
    rows.setdefault((p,v),[]).append((r,res['completionSeconds'],res['allSeconds'],a.get('objectsSeconds',0),a.get('feStatefulSetSeconds',0),a.get('servicesSeconds',0),a.get('statusSeconds',0),1000*res['creationCpuSeconds']['operator']/res['n'],res['creation']['writes']/res['n'],res['creation']['conflicts'],res['steady']['total']))
for (p,v),rs in sorted(rows.items()):
    print(f"{p:8s} {v:8s} " + " || ".join("%s: watch %.2f/%.2f audit obj %.2f fe %.2f svc %.2f st %.2f cpu %.1f w %.2f 409 %d steady %d"%x for x in rs))
