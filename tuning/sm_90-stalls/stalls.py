import csv,sys,collections
f=sys.argv[1]
rows=list(csv.reader(open(f)))
i=[k for k,r in enumerate(rows) if r and r[0]=='Address'][0]
h=rows[i]; data=rows[i+1:]
stall_cols=[c for c in h if c.startswith('stall_')]
si=h.index('Warp Stall Sampling (All Samples)'); ni=h.index('Warp Stall Sampling (Not-issued Samples)')
src=h.index('Source'); ex=h.index('Instructions Executed')
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
tot=collections.Counter(); byop=collections.defaultdict(collections.Counter)
total=0
for r in data:
    if len(r)<len(h): continue
    op=r[src].split()[0] if r[src] else ''
    if op.startswith('@'): op=r[src].split()[1]
    op=op.split('.')[0]
    for c in stall_cols:
        v=num(r[h.index(c)]); tot[c]+=v; byop[op][c]+=v
    total+=num(r[si])
print('total samples',total)
for c,v in tot.most_common(12): 
    tops=sorted(((byop[o][c],o) for o in byop),reverse=True)[:4]
    print(f'{c:40s} {v/total*100:5.1f}%  by', ', '.join(f'{o}:{x/total*100:.1f}' for x,o in tops))
